import { fromJson } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { actionCard, cardName, isRed, parseCard, sameCard, suitNamed } from "../src/cards";
import { CardNotationSchema } from "../src/gen/cardhouse/v1/game_pb";
// The card notations as the server describes its games (checked against the server by
// service/tests/games_everywhere.rs).
import notations from "./fixtures/card_notations.json";

const french = fromJson(CardNotationSchema, notations.klaberjass);
const full = fromJson(CardNotationSchema, notations.cribbage);
const swiss = fromJson(CardNotationSchema, notations.jass);

describe("card texts of the views", () => {
  it("reads French cards, with letters or symbols", () => {
    expect(parseCard("10H", french)).toEqual({ text: "10H", rank: "10", rankName: "10", suit: "hearts" });
    expect(parseCard("JD", french)?.suit).toBe("diamonds");
    expect(parseCard("A♠", french)).toEqual({ text: "A♠", rank: "A", rankName: "Ace", suit: "spades" });
    expect(parseCard("2C", full)?.rank).toBe("2");
    expect(parseCard("2C", french)).toBeNull(); // not in Klaberjass's pack
  });

  it("reads Jass cards in Swiss notation: S is shields, never spades", () => {
    expect(swiss.style).toBe("swiss");
    expect(french.style).toBe("french");
    expect(parseCard("UR", swiss)).toEqual({ text: "UR", rank: "U", rankName: "Under", suit: "roses" });
    expect(parseCard("10A", swiss)?.suit).toBe("acorns");
    expect(parseCard("OS", swiss)?.suit).toBe("shields");
    expect(parseCard("6B", swiss)?.suit).toBe("bells");
    expect(cardName(parseCard("UR", swiss)!)).toBe("Under of roses");
    expect(parseCard("UR", undefined)).toBeNull(); // the notation not yet known
  });

  it("refuses what is not a card of the pack", () => {
    for (const [text, notation] of [["UR", french], ["2B", swiss], ["1H", full], ["", french], ["10X", full], ["JH", swiss]] as const) {
      expect(parseCard(text, notation)).toBeNull();
    }
  });

  it("finds the card of a play or discard action", () => {
    expect(actionCard("play UR")).toBe("UR");
    expect(actionCard("discard 10H")).toBe("10H");
    expect(actionCard("trump roses")).toBeNull();
    expect(actionCard("wys run 10S-OS")).toBeNull();
    expect(sameCard("J♥", "JH", french)).toBe(true);
    expect(sameCard("JH", "JD", french)).toBe(false);
  });

  it("names the suits the views name", () => {
    expect(suitNamed("Spades")).toBe("spades");
    expect(suitNamed("roses")).toBe("roses");
    expect(suitNamed("obenabe")).toBeNull();
    expect(isRed("roses")).toBe(true);
    expect(isRed("shields")).toBe(false);
  });
});
