// One match through one token: a seat plays (clicking its legal cards and choices), a
// spectator or the owner watches. The view comes from the server: first GetView, then a
// Watch stream with one update per move it learns of; a seat's own moves go through Act.
import { create } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import type { CardNotation, LegalAction } from "../gen/cardhouse/v1/game_pb";
import { PlayerKind } from "../gen/cardhouse/v1/game_pb";
import type { MatchView } from "../gen/cardhouse/v1/matches_pb";
import { ActRequestSchema, MatchStatus, Role } from "../gen/cardhouse/v1/matches_pb";
import { bearer, describeError, isCode, matches } from "../api";
import { h } from "../dom";
import { roleLabel, statusLabel } from "../format";
import { describeGame } from "../games";
import { renderTable } from "../table";
import { clockTexts, noticeText } from "../clocks";
import { matchLink, recordLink, rememberedLinks } from "./links";

interface LogLine {
  move: bigint;
  text: string;
}

export function matchPage(root: HTMLElement, matchId: string, token: string): () => void {
  const abort = new AbortController();
  let view: MatchView | null = null;
  let gameName = "";
  /** How the game writes its cards, once the server has described it. */
  let cards: CardNotation | undefined;
  let busy = false;
  let error = "";
  let live: "connecting" | "live" | "ended" | "stopped" = "connecting";
  let liveError = "";
  const log: LogLine[] = [];
  /** The browser's time when the newest view (and its clock) arrived. */
  let receivedAt = Date.now();
  /** The seats' clocks, redrawn four times a second while a clock runs. */
  const clocks = h("p", { class: "clocks", "aria-live": "off" });
  const drawClocks = () => {
    const c = view?.clock;
    if (view === null || c === undefined || view.status !== MatchStatus.ACTIVE) {
      clocks.replaceChildren();
      return;
    }
    const texts = clockTexts(c, view.seats.length, receivedAt, Date.now());
    clocks.replaceChildren(
      ...texts.flatMap((t, s) => {
        const away = view?.away[s] === true;
        if (t === "" && !away) return [];
        const cls = `clock${c.seat === s ? " running" : ""}${away ? " away" : ""}`;
        return [h("span", { class: cls, "data-seat": s }, `seat ${s}: ${t}${away ? " (away)" : ""}`)];
      }),
    );
  };
  const ticker = window.setInterval(drawClocks, 250);

  /** Keeps the newest view (move numbers only grow for one viewer). */
  const update = (v: MatchView | undefined) => {
    if (v === undefined) return;
    if (view !== null && v.moveNumber < view.moveNumber) return;
    const keep = view;
    view = v;
    receivedAt = Date.now();
    // An ActResponse without include_view, or a trimmed event, lacks these: keep the last.
    if (v.view === undefined && keep?.view !== undefined) view.view = keep.view;
    if (v.game === undefined && keep?.game !== undefined) view.game = keep.game;
    if (v.game !== undefined && gameName === "") {
      gameName = v.game.name;
      describeGame(v.game.name, v.game.options)
        .then((d) => {
          cards = d.cards;
          render();
        })
        .catch((e) => {
          error = describeError(e);
          render();
        });
    }
  };

  const act = async (a: LegalAction) => {
    if (view === null || busy) return;
    busy = true;
    error = "";
    render();
    try {
      const res = await matches.act(
        create(ActRequestSchema, {
          matchId,
          action: { case: "actionId", value: a.id ?? 0 },
          expectedMoveNumber: view.moveNumber,
          includeView: true,
        }),
        bearer(token),
      );
      update(res.view);
    } catch (e) {
      error = describeError(e);
    } finally {
      busy = false;
      render();
    }
  };

  const resign = async () => {
    if (!window.confirm("Resign this match?")) return;
    try {
      const res = await matches.resign({ matchId }, bearer(token));
      update(res.view);
    } catch (e) {
      error = describeError(e);
    }
    render();
  };

  const setAway = async (away: boolean) => {
    try {
      const res = await matches.setAway({ matchId, away }, bearer(token));
      update(res.view);
    } catch (e) {
      error = describeError(e);
    }
    render();
  };

  const watch = async () => {
    live = "connecting";
    render();
    try {
      for await (const res of matches.watch({ matchId }, bearer(token, abort.signal))) {
        live = "live";
        if (res.kind.case === "snapshot") {
          update(res.kind.value);
        } else if (res.kind.case === "event") {
          const ev = res.kind.value;
          const who =
            ev.actor?.kind === PlayerKind.SEAT ? `seat ${ev.actor.seat ?? 0}` : ev.actor?.kind === PlayerKind.CHANCE ? "deal" : "match";
          const bot = ev.view?.clock?.control?.timeoutBot || "heuristic";
          const text = ev.notice ? noticeText(ev.notice.kind, ev.notice.seat ?? 0, bot) : `${who}: ${ev.text}`;
          log.push({ move: ev.view?.moveNumber ?? 0n, text });
          update(ev.view);
        }
        render();
      }
      live = "ended";
    } catch (e) {
      if (abort.signal.aborted) return;
      live = "stopped";
      liveError = describeError(e);
    }
    render();
  };

  const header = (v: MatchView): HTMLElement => {
    const opts = Object.entries(v.game?.options ?? {})
      .map(([k, x]) => `${k}=${x}`)
      .join(", ");
    return h(
      "div",
      { class: "match-header" },
      h("h2", {}, `${gameName} `, h("small", {}, `match ${matchId}`)),
      h("p", { class: "meta" },
        h("span", { class: "role" }, roleLabel(v.role, v.seat)), " · ",
        h("span", { class: "status", "data-status": MatchStatus[v.status] }, statusLabel(v.status)), " · ",
        h("span", { class: "move" }, `move ${v.moveNumber}`), " · ",
        h("span", { class: `live live-${live}` }, live === "live" ? "live" : live === "stopped" ? `live updates stopped: ${liveError}` : live)),
      opts ? h("details", { class: "options" }, h("summary", {}, "options"), opts) : null,
    );
  };

  const result = (v: MatchView): HTMLElement | null => {
    if (v.status === MatchStatus.ACTIVE) return null;
    const returns = v.returns.map((r, i) => `seat ${i}: ${r > 0 ? "+" : ""}${r}`).join(", ");
    return h(
      "div",
      { class: "result", role: "status" },
      h("strong", {}, `Match ${statusLabel(v.status)}`),
      v.resignedSeat !== undefined
        ? v.status === MatchStatus.TIMED_OUT
          ? ` (seat ${v.resignedSeat} ran out of time)`
          : ` (seat ${v.resignedSeat} resigned)`
        : "",
      returns ? ` · returns ${returns}` : "",
      " · ",
      h("a", { href: recordLink(matchId, token), class: "record-link" }, "step through the record"),
    );
  };

  const links = (): HTMLElement | null => {
    const l = rememberedLinks(matchId);
    if (l === null) return null;
    return h("details", { class: "links" }, h("summary", {}, "Links to this match"),
      h("ul", {},
        l.seats.map((s) => h("li", {}, h("a", { href: matchLink(matchId, s.token) }, `seat ${s.seat}`))),
        h("li", {}, h("a", { href: matchLink(matchId, l.spectator), class: "spectator-link" }, "spectator")),
        h("li", {}, h("a", { href: matchLink(matchId, l.owner) }, "owner"))));
  };

  const render = () => {
    if (view === null) {
      root.replaceChildren(error ? h("p", { class: "error", role: "alert" }, error) : h("p", {}, "Loading…"));
      return;
    }
    const v = view;
    const mine = v.role === Role.SEAT && v.status === MatchStatus.ACTIVE;
    const away = mine && v.away[v.seat ?? 0] === true;
    drawClocks();
    const table = v.view
      ? renderTable({
          game: gameName,
          cards,
          players: v.game?.numPlayers ?? v.seats.length,
          view: v.view,
          seats: v.seats,
          bots: v.bots,
          me: v.seat,
          legal: mine ? v.legalActions : [],
          onAct: mine ? (a) => void act(a) : undefined,
          busy,
        })
      : h("p", {}, "No view yet.");
    root.replaceChildren(
      h(
        "section",
        { class: "match" },
        header(v),
        error ? h("p", { class: "error", role: "alert" }, error) : null,
        result(v),
        clocks,
        table,
        h("div", { class: "below" },
          h("div", { class: "log" }, h("h4", {}, "Moves"),
            h("ol", { reversed: true }, log.slice(-40).reverse().map((l) => h("li", { value: Number(l.move) }, l.text)))),
          h("div", { class: "tools" },
            mine ? h("button", { type: "button", class: "resign", onclick: () => void resign() }, "Resign") : null,
            mine
              ? h("button", { type: "button", class: "away", onclick: () => void setAway(!away) },
                  away ? "I'm back" : "I'm away (a bot plays for me)")
              : null,
            live === "stopped" ? h("button", { type: "button", onclick: () => void watch() }, "Reconnect") : null,
            links())),
      ),
    );
  };

  render();
  matches
    .getView({ matchId }, bearer(token))
    .then((res) => {
      update(res.view);
      render();
      void watch();
    })
    .catch((e) => {
      error = describeError(e);
      if (isCode(e, Code.Unauthenticated, Code.NotFound)) error += " (check the link)";
      render();
    });
  return () => {
    window.clearInterval(ticker);
    abort.abort();
  };
}
