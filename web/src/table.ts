// A game view drawn as a card table: the seats round it (hands face up where the view shows
// them, backs where it only gives a count), the cards on the table, and a panel of what the
// view says (trump, bids, scores...). It draws what the view contains and nothing more: no
// rules are applied here; the legal moves come from the server.
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import type { LegalAction } from "./gen/cardhouse/v1/game_pb";
import type { SeatKind } from "./gen/cardhouse/v1/matches_pb";
import { actionCard, cardName, isRed, isSwiss, parseCard, sameCard, suitNamed } from "./cards";
import { h } from "./dom";
import { seatKindLabel, seatPosition, teamLabel } from "./format";
import { suitIcon } from "./suits";

export interface TableInput {
  game: string;
  players: number;
  /** The game's view for this viewer (a seat's, the spectator's or the full record's). */
  view: JsonObject;
  seats: SeatKind[];
  /** The viewer's seat: drawn at the bottom. */
  me?: number;
  /** The viewer's legal actions (empty when it is not to move). */
  legal: LegalAction[];
  /** Called with the chosen action; absent for a read-only table. */
  onAct?: (action: LegalAction) => void;
  /** While an action is on its way: nothing is clickable. */
  busy?: boolean;
}

type Json = JsonValue | undefined;

const arr = (v: Json): JsonValue[] => (Array.isArray(v) ? v : []);
const num = (v: Json): number | undefined => (typeof v === "number" ? v : undefined);
const str = (v: Json): string | undefined => (typeof v === "string" ? v : undefined);
const obj = (v: Json): JsonObject | undefined =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as JsonObject) : undefined;

/** One card face (or its back, for `null`). */
export function cardElement(
  text: string | null,
  swiss: boolean,
  opts: { legal?: boolean; onClick?: () => void; small?: boolean; label?: string } = {},
): HTMLElement {
  const face = text === null ? null : parseCard(text, swiss);
  const classes = ["card"];
  if (opts.small) classes.push("small");
  if (face === null) {
    classes.push(text === null ? "back" : "unknown");
    return h("div", { class: classes.join(" "), title: text ?? "hidden card" }, text ?? "");
  }
  classes.push(isRed(face.suit) ? "red" : "black", `suit-${face.suit}`);
  if (opts.legal) classes.push("legal");
  const el = h(
    "div",
    {
      class: classes.join(" "),
      title: cardName(face) + (opts.label ? ` (${opts.label})` : ""),
      "data-card": face.text,
      role: opts.onClick ? "button" : undefined,
      tabindex: opts.onClick ? 0 : undefined,
      onclick: opts.onClick,
    },
    h("span", { class: "rank top" }, face.rank),
    h("span", { class: "pip" }, suitIcon(face.suit, opts.small ? 20 : 30)),
    h("span", { class: "rank bottom" }, face.rank),
  );
  if (opts.label) el.appendChild(h("span", { class: "card-label" }, opts.label));
  return el;
}

/** A suit or mode name with its symbol (`roses`, `Spades`, `obenabe`). */
function suitText(name: string | undefined): Node | string {
  if (name === undefined) return "—";
  const suit = suitNamed(name);
  return suit === null ? name : h("span", { class: "suit-name" }, suitIcon(suit, 16), ` ${suit}`);
}

/** A compact text of any view value. */
export function summary(v: Json): string {
  if (v === null || v === undefined) return "—";
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (typeof v === "number" || typeof v === "string") return String(v);
  if (Array.isArray(v)) return v.length === 0 ? "—" : v.map(summary).join(", ");
  const parts = Object.entries(v)
    .filter(([, x]) => x !== null && !(Array.isArray(x) && x.length === 0))
    .map(([k, x]) => `${k.replace(/_/g, " ")}: ${summary(x)}`);
  return parts.length === 0 ? "—" : parts.join("; ");
}

function pair(v: Json, players: number): string {
  const a = arr(v);
  if (a.length === 2 && players === 4) return `${a[0]} (${teamLabel(0)}) – ${a[1]} (${teamLabel(1)})`;
  return a.map((x, i) => `seat ${i}: ${summary(x)}`).join(", ");
}

/** Rows of the info panel: the game's own fields, then what all games share. */
function infoRows(t: TableInput): [string, Node | string][] {
  const v = t.view;
  const rows: [string, Node | string][] = [];
  const add = (label: string, value: Json | Node, f?: (x: Json) => string) => {
    if (value === null || value === undefined) return;
    rows.push([label, value instanceof Node ? value : f ? f(value) : summary(value)]);
  };
  add("phase", v.phase, (x) => summary(x).replace(/_/g, " "));
  add("deal", v.deal_number);
  add("dealer", v.dealer, (x) => `seat ${summary(x)}`);
  switch (t.game) {
    case "jass": {
      const mode = v.mode;
      const trump = str(obj(mode)?.trump);
      if (mode !== null && mode !== undefined) add("mode", trump ? h("span", {}, "trump ", suitText(trump)) : summary(mode));
      add("multiplier", v.multiplier, (x) => `×${summary(x)}`);
      add("chosen by", v.chooser, (x) => `seat ${summary(x)}${v.pushed ? " (pushed)" : ""}`);
      add("forehand", v.forehand, (x) => `seat ${summary(x)}`);
      add("points this deal", v.deal_points, (x) => pair(x, 4));
      add("scores", v.scores, (x) => pair(x, 4));
      add("target", v.target_score);
      break;
    }
    case "klaberjass": {
      if (v.trump !== null) add("trump", h("span", {}, suitText(str(v.trump))));
      add("maker", v.maker, (x) => `seat ${summary(x)}`);
      add("bids", v.bids, (x) => arr(x).map((b) => `seat ${summary(obj(b)?.seat)}: ${summary(obj(b)?.bid)}`).join(", "));
      add("exchange", v.exchange);
      add("announcement", v.announcement);
      add("sequence points", v.sequence_points, (x) => pair(x, 2));
      add("bella", v.bella, (x) => pair(x, 2));
      add("card points", v.card_points, (x) => pair(x, 2));
      add("deal totals", v.deal_totals, (x) => pair(x, 2));
      add("scores", v.scores, (x) => pair(x, 2));
      if (num(v.held_over)) add("held over", v.held_over);
      add("target", v.target_score);
      break;
    }
    case "cribbage": {
      add("count", v.count);
      add("crib", v.crib_size, (x) => `${summary(x)} cards${v.crib ? `: ${summary(v.crib)}` : ""}`);
      add("pegging this deal", v.peg_points, (x) => pair(x, t.players));
      add("points this deal", v.deal_points, (x) => pair(x, t.players));
      add("scores", v.scores, (x) => pair(x, t.players));
      add("target", v.target_score);
      add("show", arr(v.show).length ? v.show : undefined);
      break;
    }
    case "avinas": {
      add("contract", v.kind);
      if (v.trump !== null) add("trump", h("span", {}, suitText(str(v.trump))));
      add("declarer", v.declarer, (x) => `seat ${summary(x)}`);
      add("base", v.base);
      add("knocked by", v.knocked_by, (x) => `seat ${summary(x)}`);
      add("doubled by", v.doubled_by, (x) => `seat ${summary(x)}`);
      add("bids", v.bids, (x) => arr(x).map((b, i) => `seat ${i}: ${summary(b)}`).join(", "));
      add("card points", v.card_points, (x) => pair(x, 4));
      add("tricks won", v.tricks_won, (x) => pair(x, 4));
      add("rams", v.rams, (x) => pair(x, 4));
      add("pips", v.pips, (x) => `${pair(x, 4)} (limit ${summary(v.pip_limit)})`);
      if (v.stopped) add("stopped", true);
      if (v.cat) add("cat", true);
      add("loser", v.loser, (x) => teamLabel(num(x) ?? 0));
      break;
    }
    default:
      break;
  }
  add("last deal", v.last_deal);
  const teams = t.game === "jass" || (t.game === "cribbage" && t.players === 4);
  add("winner", v.winner, (x) => (teams ? teamLabel(num(x) ?? 0) : `seat ${summary(x)}`));
  if (v.draw) add("draw", true);
  return rows;
}

/** Cards a seat shows beside its hand: Wys, sequences, discards, face-up exposures. */
function seatExtras(t: TableInput, seat: number, swiss: boolean): HTMLElement[] {
  const v = t.view;
  const out: HTMLElement[] = [];
  const shown = (label: string, cards: JsonValue[]) => {
    if (cards.length === 0) return;
    out.push(
      h("div", { class: "shown" }, h("span", { class: "shown-label" }, label),
        h("div", { class: "cards small-row" }, cards.map((c) => cardElement(str(c) ?? null, swiss, { small: true })))),
    );
  };
  switch (t.game) {
    case "jass":
      for (const w of arr(arr(v.wys)[seat])) shown(`wys ${summary(obj(w)?.name)}`, arr(obj(w)?.cards));
      break;
    case "klaberjass":
      for (const r of arr(arr(v.sequences)[seat])) shown(`${summary(obj(r)?.name)}`, arr(obj(r)?.cards));
      break;
    case "cribbage":
      shown("to the crib", arr(arr(v.discards)[seat]));
      if (arr(v.said_go)[seat] === true) out.push(h("div", { class: "badge" }, "go"));
      break;
    case "avinas":
      shown(
        "exposed",
        arr(v.exposures)
          .map(obj)
          .filter((e) => e !== undefined && num(e.seat) === seat && e.face_up === true)
          .map((e) => e?.card ?? null),
      );
      break;
    default:
      break;
  }
  return out;
}

/** The cards on the table: the trick, or Cribbage's pegging series, with what lies beside. */
function centre(t: TableInput, bottom: number, swiss: boolean): HTMLElement {
  const v = t.view;
  const el = h("div", { class: "centre" });
  const plays = t.game === "cribbage" ? arr(v.series) : arr(v.trick);
  const pile = h("div", { class: t.game === "cribbage" ? "series" : "trick" });
  for (const p of plays) {
    const play = obj(p);
    const seat = num(play?.seat) ?? 0;
    const text = play?.face_down === true ? null : (str(play?.card) ?? null);
    const card = cardElement(text, swiss, { label: `seat ${seat}` });
    card.classList.add(`from-${seatPosition(seat, bottom, t.players)}`);
    pile.appendChild(card);
  }
  el.appendChild(pile);
  const beside: [string, Json][] =
    t.game === "klaberjass"
      ? [["turn-up", v.turn_up]]
      : t.game === "cribbage"
        ? [["starter", v.starter]]
        : [];
  for (const [label, card] of beside) {
    if (typeof card === "string") {
      el.appendChild(h("div", { class: "beside" }, cardElement(card, swiss, { small: true }), h("span", {}, label)));
    }
  }
  if (t.game === "cribbage" && num(v.count) !== undefined) {
    el.appendChild(h("div", { class: "count" }, `count ${summary(v.count)}`));
  }
  return el;
}

/** The last completed trick, small, with its winner. */
function lastTrick(t: TableInput, swiss: boolean): HTMLElement | null {
  const tricks = arr(t.view.tricks);
  const last = obj(tricks[tricks.length - 1]);
  if (last === undefined) return null;
  return h(
    "div",
    { class: "last-trick" },
    h("h4", {}, `Last trick (${tricks.length}), won by seat ${summary(last.winner)}${num(last.points) !== undefined ? `, ${summary(last.points)} points` : ""}`),
    h("div", { class: "cards small-row" },
      arr(last.cards).map((p) => cardElement(obj(p)?.face_down === true ? null : (str(obj(p)?.card) ?? null), swiss, { small: true, label: `seat ${summary(obj(p)?.seat)}` }))),
  );
}

export function renderTable(t: TableInput): HTMLElement {
  const v = t.view;
  const swiss = isSwiss(t.game);
  const bottom = t.me ?? 0;
  const toAct = num(v.to_act);
  const playable = new Map<string, LegalAction>();
  const buttons: LegalAction[] = [];
  const myHand = t.me === undefined ? [] : arr(arr(v.hands)[t.me]).map((c) => str(c) ?? "");
  for (const a of t.legal) {
    const card = actionCard(a.text);
    const held = card === null ? undefined : myHand.find((c) => sameCard(c, card, swiss));
    if (held !== undefined) playable.set(held, a);
    else buttons.push(a);
  }
  const act = (a: LegalAction) => (t.onAct && !t.busy ? () => t.onAct?.(a) : undefined);

  const actions = h(
    "div",
    { class: "actions" },
    buttons.map((a) =>
      h("button", { class: "action", type: "button", "data-action": a.id ?? "", disabled: !t.onAct || t.busy, onclick: act(a) }, a.text),
    ),
  );
  const felt = h("div", { class: "felt" });
  for (let seat = 0; seat < t.players; seat++) {
    const hand = arr(v.hands)[seat];
    const size = num(arr(v.hand_sizes)[seat]) ?? 0;
    const cards = Array.isArray(hand)
      ? hand.map((c) => {
          const text = str(c) ?? "";
          const action = playable.get(text);
          return cardElement(text, swiss, { legal: action !== undefined, onClick: action ? act(action) : undefined });
        })
      : Array.from({ length: size }, () => cardElement(null, swiss));
    const badges = [
      seat === t.me ? h("span", { class: "badge you" }, "you") : null,
      num(v.dealer) === seat ? h("span", { class: "badge" }, "dealer") : null,
      toAct === seat ? h("span", { class: "badge turn" }, "to play") : null,
    ];
    felt.appendChild(
      h(
        "section",
        {
          class: `seat pos-${seatPosition(seat, bottom, t.players)}${toAct === seat ? " to-act" : ""}${seat === t.me ? " me" : ""}`,
          "data-seat": seat,
        },
        h("div", { class: "seat-label" }, `Seat ${seat} · ${seatKindLabel(t.seats[seat])}`, badges),
        h("div", { class: `cards hand${Array.isArray(hand) ? "" : " hidden-hand"}` }, cards),
        seatExtras(t, seat, swiss),
        seat === t.me ? actions : null,
      ),
    );
  }
  felt.appendChild(centre(t, bottom, swiss));

  const info = h(
    "aside",
    { class: "info" },
    h("dl", {}, infoRows(t).map(([k, x]) => [h("dt", {}, k), h("dd", {}, x)])),
    lastTrick(t, swiss),
  );
  return h("div", { class: `table game-${t.game} players-${t.players}` }, felt, info);
}
