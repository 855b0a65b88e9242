// Card texts as the engine's views write them, and their faces. The notation of each game
// (its suits and ranks, with their letters and names) comes from the server's game
// description (`DescribeGames`): nothing here knows a game by name.
//
// French notation (Klaberjass, Cribbage, Avinas): rank 2-10, J, Q, K, A and suit C D H S
// (or ♣ ♦ ♥ ♠): `10H`, `JD`, `A♠`. Swiss notation (Jass): rank 6-10, U (Under), O (Ober),
// K, A and suit B (bells), A (acorns), R (roses), S (shields): `UR`, `10A`.
import type { CardNotation } from "./gen/cardhouse/v1/game_pb";

export type Suit = "clubs" | "diamonds" | "hearts" | "spades" | "bells" | "acorns" | "roses" | "shields";

export interface CardFace {
  /** The text as the view wrote it. */
  text: string;
  /** The rank's text (`10`, `U`). */
  rank: string;
  /** The rank's name (`10`, `Under`). */
  rankName: string;
  /** The suit's name (`hearts`, `roses`). */
  suit: Suit;
}

/** Parses a card text of a view in the game's notation, or null if it is not a card of its
 * pack (or the notation is not known yet). */
export function parseCard(text: string, notation: CardNotation | undefined): CardFace | null {
  if (notation === undefined) return null;
  const t = text.trim();
  const end = t.slice(-1).toUpperCase();
  const suit = notation.suits.find((x) => x.letter === end || (x.symbol !== "" && x.symbol === end));
  const rankText = t.slice(0, -1).toUpperCase();
  const rank = notation.ranks.find((r) => r.text === rankText);
  if (suit === undefined || rank === undefined) return null;
  return { text: t, rank: rank.text, rankName: rank.name, suit: suit.name as Suit };
}

/** `Under of roses`, `10 of hearts`. */
export function cardName(face: CardFace): string {
  return `${face.rankName} of ${face.suit}`;
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
export function sameCard(a: string, b: string, notation: CardNotation | undefined): boolean {
  const x = parseCard(a, notation);
  const y = parseCard(b, notation);
  return x !== null && y !== null && x.rank === y.rank && x.suit === y.suit;
}
