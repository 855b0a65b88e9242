// A game view drawn as a card table: the seats round it (hands face up where the view shows
// them, backs where it only gives a count), the cards on the table, and a panel of what the
// view says (trump, bids, scores...). It draws what the view contains and nothing more: no
// rules are applied here; the legal moves come from the server.
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import type { CardNotation, LegalAction } from "./gen/cardhouse/v1/game_pb";
import type { SeatKind } from "./gen/cardhouse/v1/matches_pb";
import { actionCard, cardName, isRed, parseCard, sameCard, suitNamed } from "./cards";
import { h } from "./dom";
import { seatKindLabel, seatPosition, teamLabel } from "./format";
import { suitIcon } from "./suits";

export interface TableInput {
  /** The game's name (a CSS class of the table; nothing else depends on it). */
  game: string;
  players: number;
  /** How the game writes its cards (its description's `cards`); cards are drawn as text
   * until it is known. */
  cards?: CardNotation;
  /** The game's view for this viewer (a seat's, the spectator's or the full record's). */
  view: JsonObject;
  seats: SeatKind[];
  /** The bot of each bot seat, by seat (`heuristic`, `ismcts:200`, `policy:jass`). */
  bots?: { [seat: number]: string };
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
  notation: CardNotation | undefined,
  opts: { legal?: boolean; onClick?: () => void; small?: boolean; label?: string } = {},
): HTMLElement {
  const face = text === null ? null : parseCard(text, notation);
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

/** Whether the view's sides are the two partnerships of four seats (its `scores` has two
 * entries for four seats). */
function partnerships(t: TableInput): boolean {
  return t.players === 4 && arr(t.view.scores).length === 2;
}

/** How a value of the info panel is shown. */
type Shown = (t: TableInput, v: JsonObject, x: Json) => Node | string;

const seatOf: Shown = (_t, _v, x) => `seat ${summary(x)}`;
const perSide: Shown = (t, _v, x) => pair(x, t.players);
const suitOf: Shown = (_t, _v, x) => h("span", {}, suitText(str(x)));

/** The rows of the info panel: each view field the panel knows, in this order, where the
 * view has it (fields of one game or another; a view without a field shows no row). */
const INFO: [string, string, Shown?][] = [
  ["phase", "phase", (_t, _v, x) => summary(x).replace(/_/g, " ")],
  ["deal_number", "deal"],
  ["dealer", "dealer", seatOf],
  ["mode", "mode", (_t, _v, x) => {
    const trump = str(obj(x)?.trump);
    return trump ? h("span", {}, "trump ", suitText(trump)) : summary(x);
  }],
  ["multiplier", "multiplier", (_t, _v, x) => `×${summary(x)}`],
  ["chooser", "chosen by", (_t, v, x) => `seat ${summary(x)}${v.pushed ? " (pushed)" : ""}`],
  ["forehand", "forehand", seatOf],
  ["kind", "contract"],
  ["trump", "trump", suitOf],
  ["maker", "maker", seatOf],
  ["declarer", "declarer", seatOf],
  ["base", "base"],
  ["knocked_by", "knocked by", seatOf],
  ["doubled_by", "doubled by", seatOf],
  ["bids", "bids", (_t, _v, x) =>
    arr(x).map((b, i) => (obj(b) ? `seat ${summary(obj(b)?.seat)}: ${summary(obj(b)?.bid)}` : `seat ${i}: ${summary(b)}`)).join(", ")],
  ["exchange", "exchange"],
  ["announcement", "announcement"],
  ["count", "count"],
  ["crib_size", "crib", (_t, v, x) => `${summary(x)} cards${v.crib ? `: ${summary(v.crib)}` : ""}`],
  ["sequence_points", "sequence points", perSide],
  ["bella", "bella", perSide],
  ["card_points", "card points", perSide],
  ["tricks_won", "tricks won", perSide],
  ["rams", "rams", perSide],
  ["pips", "pips", (t, v, x) => `${perSide(t, v, x) as string} (limit ${summary(v.pip_limit)})`],
  ["peg_points", "pegging this deal", perSide],
  ["deal_points", "points this deal", perSide],
  ["deal_totals", "deal totals", perSide],
  ["scores", "scores", perSide],
  ["held_over", "held over"],
  ["stopped", "stopped"],
  ["cat", "cat"],
  ["loser", "loser", (_t, _v, x) => teamLabel(num(x) ?? 0)],
  ["target_score", "target"],
  ["show", "show"],
  ["last_deal", "last deal"],
  ["winner", "winner", (t, _v, x) => (partnerships(t) ? teamLabel(num(x) ?? 0) : `seat ${summary(x)}`)],
  ["draw", "draw"],
];

/** Values that say nothing: absent, null, false, 0 for a flag-like count, an empty list. */
function silent(key: string, x: Json): boolean {
  if (x === null || x === undefined || x === false) return true;
  if (Array.isArray(x) && x.length === 0) return true;
  return key === "held_over" && x === 0;
}

/** Rows of the info panel: the fields the view has, each shown its way. */
function infoRows(t: TableInput): [string, Node | string][] {
  const v = t.view;
  return INFO.filter(([key]) => !silent(key, v[key])).map(([key, label, shown]) => [
    label,
    shown ? shown(t, v, v[key]) : summary(v[key]),
  ]);
}

/** Cards a seat shows beside its hand: Wys, sequences, discards, face-up exposures. */
function seatExtras(t: TableInput, seat: number): HTMLElement[] {
  const v = t.view;
  const out: HTMLElement[] = [];
  const shown = (label: string, cards: JsonValue[]) => {
    if (cards.length === 0) return;
    out.push(
      h("div", { class: "shown" }, h("span", { class: "shown-label" }, label),
        h("div", { class: "cards small-row" }, cards.map((c) => cardElement(str(c) ?? null, t.cards, { small: true })))),
    );
  };
  for (const w of arr(arr(v.wys)[seat])) shown(`wys ${summary(obj(w)?.name)}`, arr(obj(w)?.cards));
  for (const r of arr(arr(v.sequences)[seat])) shown(`${summary(obj(r)?.name)}`, arr(obj(r)?.cards));
  shown("to the crib", arr(arr(v.discards)[seat]));
  if (arr(v.said_go)[seat] === true) out.push(h("div", { class: "badge" }, "go"));
  shown(
    "exposed",
    arr(v.exposures)
      .map(obj)
      .filter((e) => e !== undefined && num(e.seat) === seat && e.face_up === true)
      .map((e) => e?.card ?? null),
  );
  return out;
}

/** The cards on the table: the trick, or a pegging series, with what lies beside. */
function centre(t: TableInput, bottom: number): HTMLElement {
  const v = t.view;
  const el = h("div", { class: "centre" });
  const series = Array.isArray(v.series);
  const plays = series ? arr(v.series) : arr(v.trick);
  const pile = h("div", { class: series ? "series" : "trick" });
  for (const p of plays) {
    const play = obj(p);
    const seat = num(play?.seat) ?? 0;
    const text = play?.face_down === true ? null : (str(play?.card) ?? null);
    const card = cardElement(text, t.cards, { label: `seat ${seat}` });
    card.classList.add(`from-${seatPosition(seat, bottom, t.players)}`);
    pile.appendChild(card);
  }
  el.appendChild(pile);
  const beside: [string, Json][] = [
    ["turn-up", v.turn_up],
    ["starter", v.starter],
  ];
  for (const [label, card] of beside) {
    if (typeof card === "string") {
      el.appendChild(h("div", { class: "beside" }, cardElement(card, t.cards, { small: true }), h("span", {}, label)));
    }
  }
  if (series && num(v.count) !== undefined) {
    el.appendChild(h("div", { class: "count" }, `count ${summary(v.count)}`));
  }
  return el;
}

/** The last completed trick, small, with its winner. */
function lastTrick(t: TableInput): HTMLElement | null {
  const tricks = arr(t.view.tricks);
  const last = obj(tricks[tricks.length - 1]);
  if (last === undefined) return null;
  return h(
    "div",
    { class: "last-trick" },
    h("h4", {}, `Last trick (${tricks.length}), won by seat ${summary(last.winner)}${num(last.points) !== undefined ? `, ${summary(last.points)} points` : ""}`),
    h("div", { class: "cards small-row" },
      arr(last.cards).map((p) => cardElement(obj(p)?.face_down === true ? null : (str(obj(p)?.card) ?? null), t.cards, { small: true, label: `seat ${summary(obj(p)?.seat)}` }))),
  );
}

export function renderTable(t: TableInput): HTMLElement {
  const v = t.view;
  const bottom = t.me ?? 0;
  const toAct = num(v.to_act);
  const playable = new Map<string, LegalAction>();
  const buttons: LegalAction[] = [];
  const myHand = t.me === undefined ? [] : arr(arr(v.hands)[t.me]).map((c) => str(c) ?? "");
  for (const a of t.legal) {
    const card = actionCard(a.text);
    const held = card === null ? undefined : myHand.find((c) => sameCard(c, card, t.cards));
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
          return cardElement(text, t.cards, { legal: action !== undefined, onClick: action ? act(action) : undefined });
        })
      : Array.from({ length: size }, () => cardElement(null, t.cards));
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
        h("div", { class: "seat-label" }, `Seat ${seat} · ${t.bots?.[seat] ?? seatKindLabel(t.seats[seat])}`, badges),
        h("div", { class: `cards hand${Array.isArray(hand) ? "" : " hidden-hand"}` }, cards),
        seatExtras(t, seat),
        seat === t.me ? actions : null,
      ),
    );
  }
  felt.appendChild(centre(t, bottom));

  const info = h(
    "aside",
    { class: "info" },
    h("dl", {}, infoRows(t).map(([k, x]) => [h("dt", {}, k), h("dd", {}, x)])),
    lastTrick(t),
  );
  return h("div", { class: `table game-${t.game} players-${t.players}` }, felt, info);
}
