// The page's addresses (in the fragment, which browsers never send to a server: the tokens
// in them stay on this machine; share a link to share the seat or the spectator view).

export type Route =
  | { page: "lobby" }
  | { page: "match"; matchId: string; token: string }
  | { page: "record"; matchId: string; token: string };

export function matchLink(matchId: string, token: string): string {
  return `#/match/${encodeURIComponent(matchId)}?token=${encodeURIComponent(token)}`;
}

export function recordLink(matchId: string, token: string): string {
  return `#/record/${encodeURIComponent(matchId)}?token=${encodeURIComponent(token)}`;
}

export function parseRoute(hash: string): Route {
  const m = /^#\/(match|record)\/([^?]+)\?token=(.+)$/.exec(hash);
  if (m === null) return { page: "lobby" };
  const matchId = decodeURIComponent(m[2]);
  const token = decodeURIComponent(m[3]);
  return m[1] === "match" ? { page: "match", matchId, token } : { page: "record", matchId, token };
}

/** The tokens of a match this browser created (kept for the tab's life, to offer links). */
export interface MatchLinks {
  seats: { seat: number; token: string }[];
  spectator: string;
  owner: string;
}

export function rememberLinks(matchId: string, links: MatchLinks): void {
  sessionStorage.setItem(`cardhouse.links.${matchId}`, JSON.stringify(links));
}

export function rememberedLinks(matchId: string): MatchLinks | null {
  const text = sessionStorage.getItem(`cardhouse.links.${matchId}`);
  return text === null ? null : (JSON.parse(text) as MatchLinks);
}
