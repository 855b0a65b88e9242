// Card texts as the engine's views write them, and their faces.
//
// French notation (Klaberjass, Cribbage, Avinas): rank 2-10, J, Q, K, A and suit C D H S
// (or ♣ ♦ ♥ ♠): `10H`, `JD`, `A♠`. Swiss notation (Jass): rank 6-10, U (Under), O (Ober),
// K, A and suit B (bells), A (acorns), R (roses), S (shields): `UR`, `10A`.

export type Suit = "clubs" | "diamonds" | "hearts" | "spades" | "bells" | "acorns" | "roses" | "shields";

export interface CardFace {
  /** The text as the view wrote it. */
  text: string;
  rank: string;
  suit: Suit;
}

const FRENCH_SUITS: Record<string, Suit> = {
  C: "clubs",
  "♣": "clubs",
  D: "diamonds",
  "♦": "diamonds",
  H: "hearts",
  "♥": "hearts",
  S: "spades",
  "♠": "spades",
};
const SWISS_SUITS: Record<string, Suit> = { B: "bells", A: "acorns", R: "roses", S: "shields" };
const FRENCH_RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
const SWISS_RANKS = ["6", "7", "8", "9", "10", "U", "O", "K", "A"];

const RANK_NAMES: Record<string, string> = {
  J: "Jack",
  Q: "Queen",
  K: "King",
  A: "Ace",
  U: "Under",
  O: "Ober",
};

/** Whether a game's views write cards in Swiss notation. */
export function isSwiss(game: string): boolean {
  return game === "jass";
}

/** Parses a card text of a view, or null if it is not one. */
export function parseCard(text: string, swiss: boolean): CardFace | null {
  const t = text.trim();
  const suitChar = t.slice(-1).toUpperCase();
  const rank = t.slice(0, -1).toUpperCase();
  const suit = (swiss ? SWISS_SUITS : FRENCH_SUITS)[suitChar];
  const ranks = swiss ? SWISS_RANKS : FRENCH_RANKS;
  if (suit === undefined || !ranks.includes(rank)) return null;
  return { text: t, rank, suit };
}

/** `Under of roses`, `10 of hearts`. */
export function cardName(face: CardFace): string {
  return `${RANK_NAMES[face.rank] ?? face.rank} of ${face.suit}`;
}

export function isRed(suit: Suit): boolean {
  return suit === "hearts" || suit === "diamonds" || suit === "roses";
}

/** A suit named in a view (`"Spades"`, `"roses"`, `"clubs"`), or null. */
export function suitNamed(name: string): Suit | null {
  const n = name.toLowerCase();
  const all: Suit[] = ["clubs", "diamonds", "hearts", "spades", "bells", "acorns", "roses", "shields"];
  return all.find((x) => x === n) ?? null;
}

/** The card a legal action plays or discards (`play UR` -> `UR`), or null. */
export function actionCard(text: string): string | null {
  const m = /^(?:play|discard)\s+(\S+)$/.exec(text.trim());
  return m ? m[1] : null;
}

/** Two card texts name the same card (case and symbol spelling aside). */
export function sameCard(a: string, b: string, swiss: boolean): boolean {
  const x = parseCard(a, swiss);
  const y = parseCard(b, swiss);
  return x !== null && y !== null && x.rank === y.rank && x.suit === y.suit;
}
