// @vitest-environment happy-dom
import type { JsonObject } from "@bufbuild/protobuf";
import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { fromJson } from "@bufbuild/protobuf";
import { CardNotationSchema, LegalActionSchema } from "../src/gen/cardhouse/v1/game_pb";
import { SeatKind } from "../src/gen/cardhouse/v1/matches_pb";
import { renderTable } from "../src/table";
// Seat 1's view of a Jass deal in play (from the engine: trump acorns, two cards on the table).
import seatView from "./fixtures/jass_seat1_play.json";
import notations from "./fixtures/card_notations.json";

const cards = fromJson(CardNotationSchema, notations.jass);

const seats = [SeatKind.HEURISTIC_BOT, SeatKind.HUMAN, SeatKind.HEURISTIC_BOT, SeatKind.HEURISTIC_BOT];
const legal = (seatView.legal_actions as { id: number; text: string }[]).map((a) => create(LegalActionSchema, a));

describe("the table draws the view it is given", () => {
  it("shows the seat's own hand face up and every other hand as backs", () => {
    const el = renderTable({ game: "jass", cards, players: 4, view: seatView as JsonObject, seats, me: 1, legal });
    const mine = el.querySelectorAll(".seat.me .hand .card[data-card]");
    expect([...mine].map((c) => c.getAttribute("data-card"))).toEqual(["6B", "10B", "UA", "7R", "AR", "7S"]);
    for (const seat of [0, 2, 3]) {
      const hand = el.querySelector(`.seat[data-seat="${seat}"] .hand`)!;
      expect(hand.querySelectorAll(".card[data-card]").length).toBe(0);
      expect(hand.querySelectorAll(".card.back").length).toBe(seatView.hand_sizes[seat]);
    }
    // The trick: the two cards laid, in Swiss suits.
    expect([...el.querySelectorAll(".trick .card")].map((c) => c.getAttribute("data-card"))).toEqual(["6S", "6A"]);
    expect(el.querySelectorAll(".trick svg.suit-shields, .trick svg.suit-acorns").length).toBe(2);
    expect(el.querySelector(".info")!.textContent).toContain("acorns");
  });

  it("highlights exactly the legal cards and plays the chosen one", () => {
    const chosen: number[] = [];
    const el = renderTable({
      game: "jass",
      cards,
      players: 4,
      view: seatView as JsonObject,
      seats,
      me: 1,
      legal,
      onAct: (a) => chosen.push(a.id ?? -1),
    });
    const highlighted = [...el.querySelectorAll(".seat.me .card.legal")].map((c) => c.getAttribute("data-card"));
    expect(highlighted).toEqual(["UA", "7S"]);
    (el.querySelector('.card[data-card="7S"]') as HTMLElement).click();
    (el.querySelector('.card[data-card="AR"]') as HTMLElement).click(); // not legal: nothing
    expect(chosen).toEqual([28]);
    expect(el.querySelectorAll(".actions .action").length).toBe(0);
  });

  it("offers nothing to click to a read-only viewer", () => {
    const el = renderTable({ game: "jass", cards, players: 4, view: seatView as JsonObject, seats, me: 1, legal: [] });
    expect(el.querySelectorAll(".card.legal, .action").length).toBe(0);
  });
});
