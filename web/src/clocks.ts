// The clocks of a match as the table shows them: the time left of the seat to move (from the
// server's deadline and its time when the view was made, never against the browser's own
// clock), each seat's bank, and the words for a seat's notices.
import type { ClockView } from "./gen/cardhouse/v1/matches_pb";
import { SeatNoticeKind } from "./gen/cardhouse/v1/matches_pb";

/** Milliseconds as the table writes them: `1:05`, `9.5 s` under ten seconds, `0.0 s`. */
export function formatMs(ms: number): string {
  const t = Math.max(0, ms);
  if (t < 10_000) return `${(Math.floor(t / 100) / 10).toFixed(1)} s`;
  const s = Math.floor(t / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

/**
 * The milliseconds the seat to move has left at the browser's time `now`, for a clock view
 * received at the browser's time `receivedAt` (the server's time then was `serverNowMs`):
 * only the time elapsed since it was received is measured here. `undefined` if no clock runs.
 */
export function timeLeft(clock: ClockView, receivedAt: number, now: number): number | undefined {
  if (clock.seat === undefined || clock.deadlineMs === 0n) return undefined;
  const serverNow = Number(clock.serverNowMs) + Math.max(0, now - receivedAt);
  return Math.max(0, Number(clock.deadlineMs) - serverNow);
}

/** Each seat's clock as text: the running seat's time left, the others' banks. */
export function clockTexts(clock: ClockView, seats: number, receivedAt: number, now: number): string[] {
  const left = timeLeft(clock, receivedAt, now);
  const texts: string[] = [];
  for (let s = 0; s < seats; s++) {
    const bank = clock.bankMs[s];
    if (clock.seat === s && left !== undefined) {
      texts.push(`⏱ ${formatMs(left)}`);
    } else if (bank !== undefined) {
      texts.push(formatMs(Number(bank)));
    } else {
      texts.push("");
    }
  }
  return texts;
}

/** A seat's notice as the move log writes it. */
export function noticeText(kind: SeatNoticeKind, seat: number, bot: string): string {
  switch (kind) {
    case SeatNoticeKind.TIMED_OUT:
      return `seat ${seat}: time is up (${bot} plays the move, or the match's timeout policy applies)`;
    case SeatNoticeKind.AWAY:
      return `seat ${seat} is away: ${bot} plays its turns`;
    case SeatNoticeKind.BACK:
      return `seat ${seat} is back`;
    default:
      return `seat ${seat}: notice`;
  }
}
