import { describe, expect, it } from "vitest";
import { actionCard, cardName, isRed, isSwiss, parseCard, sameCard, suitNamed } from "../src/cards";

describe("card texts of the views", () => {
  it("reads French cards, with letters or symbols", () => {
    expect(parseCard("10H", false)).toEqual({ text: "10H", rank: "10", suit: "hearts" });
    expect(parseCard("JD", false)?.suit).toBe("diamonds");
    expect(parseCard("A♠", false)).toEqual({ text: "A♠", rank: "A", suit: "spades" });
    expect(parseCard("2C", false)?.rank).toBe("2");
  });

  it("reads Jass cards in Swiss notation: S is shields, never spades", () => {
    expect(isSwiss("jass")).toBe(true);
    expect(isSwiss("klaberjass")).toBe(false);
    expect(parseCard("UR", true)).toEqual({ text: "UR", rank: "U", suit: "roses" });
    expect(parseCard("10A", true)?.suit).toBe("acorns");
    expect(parseCard("OS", true)?.suit).toBe("shields");
    expect(parseCard("6B", true)?.suit).toBe("bells");
    expect(cardName(parseCard("UR", true)!)).toBe("Under of roses");
  });

  it("refuses what is not a card of the pack", () => {
    for (const [text, swiss] of [["UR", false], ["2B", true], ["1H", false], ["", false], ["10X", false], ["JH", true]] as const) {
      expect(parseCard(text, swiss)).toBeNull();
    }
  });

  it("finds the card of a play or discard action", () => {
    expect(actionCard("play UR")).toBe("UR");
    expect(actionCard("discard 10H")).toBe("10H");
    expect(actionCard("trump roses")).toBeNull();
    expect(actionCard("wys run 10S-OS")).toBeNull();
    expect(sameCard("J♥", "JH", false)).toBe(true);
    expect(sameCard("JH", "JD", false)).toBe(false);
  });

  it("names the suits the views name", () => {
    expect(suitNamed("Spades")).toBe("spades");
    expect(suitNamed("roses")).toBe("roses");
    expect(suitNamed("obenabe")).toBeNull();
    expect(isRed("roses")).toBe(true);
    expect(isRed("shields")).toBe(false);
  });
});
