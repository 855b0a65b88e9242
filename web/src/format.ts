// Pure helpers for display: status code names, enum names, seats.
import { Code } from "@connectrpc/connect";
import { MatchStatus, Role, SeatKind } from "./gen/cardhouse/v1/matches_pb";

/** gRPC's name of a status code (`FailedPrecondition` -> `FAILED_PRECONDITION`). */
export function codeName(code: Code): string {
  return (Code[code] ?? String(code)).replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase();
}

export const SEAT_KINDS: { kind: SeatKind; label: string }[] = [
  { kind: SeatKind.HUMAN, label: "human" },
  { kind: SeatKind.HEURISTIC_BOT, label: "heuristic bot" },
  { kind: SeatKind.RANDOM_BOT, label: "random bot" },
  { kind: SeatKind.ISMCTS_BOT, label: "IS-MCTS bot" },
  { kind: SeatKind.BOT, label: "bot" },
];

export function seatKindLabel(kind: SeatKind | undefined): string {
  return SEAT_KINDS.find((k) => k.kind === kind)?.label ?? "seat";
}

export function statusLabel(status: MatchStatus): string {
  switch (status) {
    case MatchStatus.ACTIVE:
      return "being played";
    case MatchStatus.FINISHED:
      return "finished";
    case MatchStatus.RESIGNED:
      return "resigned";
    case MatchStatus.ABORTED:
      return "aborted";
    case MatchStatus.TIMED_OUT:
      return "lost on time";
    default:
      return "unknown";
  }
}

export function roleLabel(role: Role, seat: number | undefined): string {
  switch (role) {
    case Role.SEAT:
      return `seat ${seat ?? "?"}`;
    case Role.OWNER:
      return "owner";
    case Role.SPECTATOR:
      return "spectator";
    default:
      return "unknown";
  }
}

/** The two teams of a four-seat partnership game: seats 0 & 2 and 1 & 3. */
export function teamLabel(team: number): string {
  return team === 0 ? "seats 0 & 2" : "seats 1 & 3";
}

/** Seat positions round the table, the viewer's seat at the bottom. */
export function seatPosition(seat: number, bottom: number, players: number): string {
  const k = (seat - bottom + players) % players;
  const ring: Record<number, string[]> = {
    2: ["bottom", "top"],
    3: ["bottom", "left", "right"],
    4: ["bottom", "left", "top", "right"],
  };
  return (ring[players] ?? ring[4])[k] ?? "top";
}
