// The games the server plays, as it describes them (`Matches.DescribeGames`): their names,
// seats, options and card notation. The web table knows no game by name; a game the server
// adds appears here without a change to the page.
import type { GameDescription } from "./gen/cardhouse/v1/game_pb";
import { matches } from "./api";

const described = new Map<string, Promise<GameDescription>>();

/** Every game the server plays, under its default options, in the server's order. */
export async function listGames(): Promise<GameDescription[]> {
  const res = await matches.describeGames({});
  for (const g of res.games) {
    if (g.info !== undefined) described.set(key(g.info.name, {}), Promise.resolve(g));
  }
  return res.games;
}

/** `game` under `options` (missing ones take their defaults), asked once per combination. */
export function describeGame(game: string, options: Record<string, string>): Promise<GameDescription> {
  const k = key(game, options);
  let d = described.get(k);
  if (d === undefined) {
    d = matches.describeGames({ games: [{ game, options }] }).then((res) => {
      const g = res.games[0];
      if (g === undefined) throw new Error(`the server did not describe ${game}`);
      return g;
    });
    // A failed description is asked again next time.
    d.catch(() => described.delete(k));
    described.set(k, d);
  }
  return d;
}

function key(game: string, options: Record<string, string>): string {
  const parts = Object.entries(options)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`);
  return `${game}?${parts.join("&")}`;
}
