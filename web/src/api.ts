// The server's Matches and Engine services over gRPC-Web, on the page's own origin.
import { Code, ConnectError, createClient, type CallOptions } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { codeName } from "./format";
import { Engine } from "./gen/cardhouse/v1/engine_pb";
import { Matches } from "./gen/cardhouse/v1/matches_pb";

const transport = createGrpcWebTransport({ baseUrl: window.location.origin });

export const matches = createClient(Matches, transport);
export const engine = createClient(Engine, transport);

/** Call options carrying a match token (`authorization: Bearer <token>`). */
export function bearer(token: string, signal?: AbortSignal): CallOptions {
  return { headers: { authorization: `Bearer ${token}` }, signal };
}

/** An error as the server words it: `FAILED_PRECONDITION: not your turn (...)`. */
export function describeError(err: unknown): string {
  const e = ConnectError.from(err);
  return e.rawMessage ? `${codeName(e.code)}: ${e.rawMessage}` : codeName(e.code);
}

export function isCode(err: unknown, ...codes: Code[]): boolean {
  return codes.includes(ConnectError.from(err).code);
}
