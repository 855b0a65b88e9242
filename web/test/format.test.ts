import { Code } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { codeName, seatPosition } from "../src/format";
import { matchLink, parseRoute, recordLink } from "../src/pages/links";

describe("display helpers", () => {
  it("spells status codes as gRPC does", () => {
    expect(codeName(Code.FailedPrecondition)).toBe("FAILED_PRECONDITION");
    expect(codeName(Code.Unauthenticated)).toBe("UNAUTHENTICATED");
    expect(codeName(Code.Aborted)).toBe("ABORTED");
  });

  it("puts the viewer at the bottom and the others round the table", () => {
    expect([0, 1, 2, 3].map((s) => seatPosition(s, 2, 4))).toEqual(["top", "right", "bottom", "left"]);
    expect([0, 1].map((s) => seatPosition(s, 1, 2))).toEqual(["top", "bottom"]);
    expect([0, 1, 2].map((s) => seatPosition(s, 0, 3))).toEqual(["bottom", "left", "right"]);
  });

  it("round-trips its links, tokens included", () => {
    expect(parseRoute(matchLink("m 1", "t/+="))).toEqual({ page: "match", matchId: "m 1", token: "t/+=" });
    expect(parseRoute(recordLink("abc", "tok"))).toEqual({ page: "record", matchId: "abc", token: "tok" });
    expect(parseRoute("")).toEqual({ page: "lobby" });
    expect(parseRoute("#/match/abc")).toEqual({ page: "lobby" });
  });
});
