// A finished match step by step. GetRecord gives every step (every card) and the final
// position; the position after any step is the Engine service's (NewInitialState, then the
// record's chance outcomes and actions through ApplyChance and ApplyAction, then Observe with
// the full view). Where the server does not offer the Engine service to this page, the
// steps are listed with the final position only.
import type { JsonObject } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import type { CardNotation } from "../gen/cardhouse/v1/game_pb";
import { PlayerKind } from "../gen/cardhouse/v1/game_pb";
import { ViewerKind } from "../gen/cardhouse/v1/engine_pb";
import type { GetRecordResponse, RecordStep } from "../gen/cardhouse/v1/matches_pb";
import { StandIn_Reason } from "../gen/cardhouse/v1/matches_pb";
import { bearer, describeError, engine, isCode, matches } from "../api";
import { h } from "../dom";
import { statusLabel } from "../format";
import { describeGame } from "../games";
import { renderTable } from "../table";
import { matchLink } from "./links";

export function recordPage(root: HTMLElement, matchId: string, token: string): () => void {
  let record: GetRecordResponse | null = null;
  /** How the game writes its cards, as the server describes it. */
  let cards: CardNotation | undefined;
  let steps: RecordStep[] = [];
  let at = 0; // steps applied
  let shown: JsonObject | undefined;
  let error = "";
  let note = "";
  let replay = true;
  let loading = false;
  let disposed = false;
  const states = new Map<number, Uint8Array>(); // state after `k` steps

  const stateAfter = async (k: number): Promise<Uint8Array> => {
    let from = k;
    while (from > 0 && !states.has(from)) from--;
    let state = states.get(from);
    if (state === undefined) {
      const game = record?.game;
      const res = await engine.newInitialState({ game: game?.name ?? "", options: game?.options ?? {} });
      state = res.state?.state ?? new Uint8Array();
      states.set(0, state);
    }
    for (let i = from; i < k; i++) {
      const step = steps[i];
      const before: Uint8Array = state;
      const res =
        step.actor?.kind === PlayerKind.CHANCE
          ? await engine.applyChance({ state: before, source: { case: "outcome", value: step.action ?? 0 } })
          : await engine.applyAction({ state: before, action: { case: "actionId", value: step.action ?? 0 } });
      const after: Uint8Array = res.state?.state ?? new Uint8Array();
      states.set(i + 1, after);
      state = after;
    }
    return state;
  };

  const go = async (k: number) => {
    at = Math.max(0, Math.min(steps.length, k));
    error = "";
    if (at === steps.length || !replay) {
      shown = record?.finalView;
      render();
      return;
    }
    loading = true;
    render();
    try {
      const state = await stateAfter(at);
      const res = await engine.observe({ state, viewer: ViewerKind.OMNISCIENT });
      shown = res.view;
    } catch (e) {
      if (isCode(e, Code.Unimplemented, Code.Unauthenticated, Code.PermissionDenied)) {
        replay = false;
        note = `The Engine service is not available to this page (${describeError(e)}): the table shows the final position.`;
        shown = record?.finalView;
      } else {
        error = describeError(e);
      }
    } finally {
      loading = false;
    }
    if (!disposed) render();
  };

  const stepText = (s: RecordStep) =>
    `${s.actor?.kind === PlayerKind.CHANCE ? "chance" : s.actor?.kind === PlayerKind.SEAT ? `seat ${s.actor.seat ?? 0}` : "—"}: ${s.text}` +
    (s.standIn ? ` (played by ${s.standIn.bot}: ${s.standIn.reason === StandIn_Reason.TIMED_OUT ? "time was up" : "the seat was away"})` : "");

  const render = () => {
    if (record === null) {
      root.replaceChildren(error ? h("p", { class: "error", role: "alert" }, error) : h("p", {}, "Loading the record…"));
      return;
    }
    const r = record;
    const game = r.game?.name ?? "";
    const returns = r.returns.map((x, i) => `seat ${i}: ${x > 0 ? "+" : ""}${x}`).join(", ");
    const list = h(
      "ol",
      { class: "steps", start: 1 },
      steps.map((s, i) =>
        h("li", { class: i + 1 === at ? "current" : i < at ? "done" : "", onclick: () => void go(i + 1) }, stepText(s)),
      ),
    );
    root.replaceChildren(
      h(
        "section",
        { class: "record" },
        h("h2", {}, `${game} record `, h("small", {}, `match ${matchId}`)),
        h("p", { class: "meta" }, `${statusLabel(r.status)} · seed ${r.seed} · ${steps.length} steps`, returns ? ` · returns ${returns}` : "",
          " · ", h("a", { href: matchLink(matchId, token) }, "back to the match")),
        note ? h("p", { class: "note" }, note) : null,
        error ? h("p", { class: "error", role: "alert" }, error) : null,
        h("div", { class: "controls" },
          h("button", { type: "button", class: "first", disabled: loading || at === 0, onclick: () => void go(0) }, "« start"),
          h("button", { type: "button", class: "prev", disabled: loading || at === 0, onclick: () => void go(at - 1) }, "◀ back"),
          h("span", { class: "position" }, `step ${at} of ${steps.length}`),
          h("button", { type: "button", class: "next", disabled: loading || at === steps.length, onclick: () => void go(at + 1) }, "next ▶"),
          h("button", { type: "button", class: "last", disabled: loading || at === steps.length, onclick: () => void go(steps.length) }, "end »")),
        h("p", { class: "step-now" }, at === 0 ? "Before the first step." : stepText(steps[at - 1])),
        h("div", { class: `record-body${loading ? " loading" : ""}` },
          h("div", {},
            !replay || at === steps.length ? h("p", { class: "table-caption" }, "The final position") : null,
            shown
              ? renderTable({ game, cards, players: r.game?.numPlayers ?? r.seats.length, view: shown, seats: r.seats, legal: [] })
              : h("p", {}, loading ? "Replaying…" : "")),
          list),
      ),
    );
    // Keep the current step in sight inside the list (the page itself does not scroll).
    const current = list.querySelector<HTMLElement>(".current");
    if (current !== null) list.scrollTop = current.offsetTop - list.clientHeight / 2;
  };

  const load = async () => {
    try {
      let from = 0n;
      for (;;) {
        const page = await matches.getRecord({ matchId, fromStep: from }, bearer(token));
        if (record === null) {
          record = page;
          if (page.game !== undefined) cards = (await describeGame(page.game.name, page.game.options)).cards;
        }
        steps = steps.concat(page.steps);
        if (page.nextStep === undefined) break;
        from = page.nextStep;
      }
      await go(steps.length);
    } catch (e) {
      error = describeError(e);
      render();
    }
  };

  render();
  void load();
  return () => {
    disposed = true;
  };
}
