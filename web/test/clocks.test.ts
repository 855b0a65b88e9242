import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { clockTexts, formatMs, noticeText, timeLeft } from "../src/clocks";
import { ClockViewSchema, SeatNoticeKind } from "../src/gen/cardhouse/v1/matches_pb";

describe("clocks", () => {
  it("formats milliseconds for the table", () => {
    expect(formatMs(9_549)).toBe("9.5 s");
    expect(formatMs(-5)).toBe("0.0 s");
    expect(formatMs(65_000)).toBe("1:05");
    expect(formatMs(3_723_000)).toBe("1:02:03");
  });

  it("counts the time left from the server's deadline and time, not the browser's clock", () => {
    const clock = create(ClockViewSchema, { seat: 2, deadlineMs: 50_000n, serverNowMs: 40_000n, bankMs: [1n, 2n, 3n, 4n] });
    // The browser's clock is far from the server's: only the time since receipt counts.
    expect(timeLeft(clock, 1_000_000, 1_000_000)).toBe(10_000);
    expect(timeLeft(clock, 1_000_000, 1_004_000)).toBe(6_000);
    expect(timeLeft(clock, 1_000_000, 1_090_000)).toBe(0);
    expect(clockTexts(clock, 4, 0, 500)).toEqual(["0.0 s", "0.0 s", "⏱ 9.5 s", "0.0 s"]);
    expect(timeLeft(create(ClockViewSchema, { serverNowMs: 1n }), 0, 0)).toBeUndefined();
  });

  it("words each notice", () => {
    expect(noticeText(SeatNoticeKind.AWAY, 1, "heuristic")).toBe("seat 1 is away: heuristic plays its turns");
    expect(noticeText(SeatNoticeKind.BACK, 3, "heuristic")).toBe("seat 3 is back");
  });
});
