// Create a match: the game, its options, who plays each seat.
import { create } from "@bufbuild/protobuf";
import type { GameDescription, OptionSpec } from "../gen/cardhouse/v1/game_pb";
import { OptionKind } from "../gen/cardhouse/v1/game_pb";
import { CreateMatchRequestSchema, SeatKind, TimeoutPolicy } from "../gen/cardhouse/v1/matches_pb";
import { describeError, matches } from "../api";
import { h } from "../dom";
import { describeGame, listGames } from "../games";
import { matchLink, rememberLinks } from "./links";

/** The seat choice of a person (every other choice is a bot's name). */
const HUMAN = "human";

export function lobbyPage(root: HTMLElement): () => void {
  // The games and their options, from the server (DescribeGames); until they arrive, or if
  // the server cannot describe them, nothing can be created.
  let games: string[] = [];
  let specs = new Map<string, OptionSpec[]>();
  /** The bots that can play each game, by name (its description's `bots`). */
  let botsOf = new Map<string, string[]>();
  let game = "";
  const values: Record<string, string> = {};
  /** Seats of the chosen game under the chosen options, as the server describes it. */
  let seatCount = 0;
  /** Who plays each seat: `human`, or a bot's name. */
  let seats: string[] = [];
  let error = "";
  /** The clock of the human seats, as chosen (seconds; empty: none). */
  const clock = { move: "", bank: "", increment: "", policy: "bot", bot: "heuristic" };

  /** Whether the seat count is being asked again (no match is created meanwhile). */
  let pending = false;

  /** Asks the server how many seats the game has under the options now chosen. */
  const describe = () => {
    const asked = { game, options: { ...values } };
    pending = true;
    describeGame(asked.game, asked.options)
      .then((d) => {
        if (asked.game !== game || JSON.stringify(asked.options) !== JSON.stringify(values)) return;
        seatCount = d.info?.numPlayers ?? 0;
        pending = false;
        error = "";
        render();
      })
      .catch((e) => {
        error = describeError(e);
        render();
      });
  };

  const optionInput = (spec: OptionSpec): HTMLElement => {
    const set = (e: Event) => {
      values[spec.name] = (e.target as HTMLInputElement).value;
      describe();
      render();
    };
    const value = values[spec.name] ?? spec.defaultValue;
    let input: HTMLElement;
    if (spec.kind === OptionKind.INT) {
      input = h("input", { type: "number", name: spec.name, min: String(spec.intMin), max: String(spec.intMax), value, onchange: set });
    } else {
      const choices = spec.kind === OptionKind.BOOL ? ["false", "true"] : spec.choices;
      input = h("select", { name: spec.name, onchange: set }, choices.map((c) => h("option", { value: c, selected: c === value }, c)));
    }
    return h("label", { class: "option", title: spec.doc }, h("span", {}, spec.name.replace(/_/g, " ")), input);
  };

  const render = () => {
    const n = seatCount;
    // The choices made stay when the seat count changes (and while it is 0: a new game).
    if (n > 0) seats = Array.from({ length: n }, (_, i) => seats[i] ?? (i === 0 ? HUMAN : "heuristic"));
    const choices = [HUMAN, ...(botsOf.get(game) ?? [])];
    const gameSpecs = specs.get(game);
    root.replaceChildren(
      h(
        "section",
        { class: "lobby" },
        h("h2", {}, "New match"),
        h(
          "form",
          { id: "create", onsubmit: (e: Event) => { e.preventDefault(); void submit(); } },
          h("label", { class: "option" }, h("span", {}, "game"),
            h("select", { name: "game", onchange: (e: Event) => { game = (e.target as HTMLSelectElement).value; clear(values); seatCount = 0; describe(); render(); } },
              games.map((g) => h("option", { value: g, selected: g === game }, g)))),
          h("fieldset", {}, h("legend", {}, "options"),
            gameSpecs
              ? gameSpecs.map(optionInput)
              : h("label", { class: "option" }, h("span", {}, "options (key=value, comma-separated)"),
                  h("input", { name: "options-text", value: Object.entries(values).map(([k, v]) => `${k}=${v}`).join(","),
                    onchange: (e: Event) => { parseOptions((e.target as HTMLInputElement).value); describe(); render(); } }))),
          h("fieldset", {}, h("legend", {}, "seats"),
            seats.slice(0, n).map((kind, i) =>
              h("label", { class: "option" }, h("span", {}, `seat ${i}`),
                h("select", { name: `seat-${i}`, onchange: (e: Event) => { seats[i] = (e.target as HTMLSelectElement).value; } },
                  choices.map((c) => h("option", { value: c, selected: c === kind }, c)))))),
          h("fieldset", { class: "clock" }, h("legend", {}, "clock (human seats; empty: none)"),
            ([["move", "seconds a move"], ["bank", "bank, seconds"], ["increment", "increment, seconds"]] as const).map(([k, label]) =>
              h("label", { class: "option" }, h("span", {}, label),
                h("input", { name: `clock-${k}`, inputmode: "numeric", pattern: "[0-9]*", value: clock[k],
                  onchange: (e: Event) => { clock[k] = (e.target as HTMLInputElement).value.trim(); } }))),
            h("label", { class: "option" }, h("span", {}, "when time is up"),
              h("select", { name: "clock-policy", onchange: (e: Event) => { clock.policy = (e.target as HTMLSelectElement).value; } },
                [["bot", "a bot plays the move"], ["resign", "the seat loses"], ["abort", "the match is aborted"]].map(([v, l]) =>
                  h("option", { value: v, selected: v === clock.policy }, l)))),
            h("label", { class: "option" }, h("span", {}, "bot for late or away seats"),
              h("select", { name: "clock-bot", onchange: (e: Event) => { clock.bot = (e.target as HTMLSelectElement).value; } },
                (botsOf.get(game) ?? ["heuristic"]).map((b) => h("option", { value: b, selected: b === clock.bot }, b))))),
          h("label", { class: "option" }, h("span", {}, "seed (optional)"), h("input", { name: "seed", inputmode: "numeric", pattern: "[0-9]*" })),
          h("button", { type: "submit", class: "primary", disabled: seatCount === 0 || pending }, "Create match"),
        ),
        error ? h("p", { class: "error", role: "alert" }, error) : null,
      ),
    );
  };

  const clear = (o: Record<string, string>) => {
    for (const k of Object.keys(o)) delete o[k];
  };

  const parseOptions = (text: string) => {
    clear(values);
    for (const part of text.split(",")) {
      const [k, v] = part.split("=").map((x) => x.trim());
      if (k && v !== undefined) values[k] = v;
    }
  };

  /** The time control chosen, if any (seconds to milliseconds). */
  const timeControl = () => {
    const ms = (x: string) => (x === "" ? 0n : BigInt(Math.round(Number(x) * 1000)));
    if (clock.move === "" && clock.bank === "") return undefined;
    return {
      moveMs: ms(clock.move),
      bankMs: ms(clock.bank),
      incrementMs: ms(clock.increment),
      onTimeout: clock.policy === "resign" ? TimeoutPolicy.RESIGN : clock.policy === "abort" ? TimeoutPolicy.ABORT : TimeoutPolicy.BOT,
      timeoutBot: clock.bot,
    };
  };

  const submit = async () => {
    const form = root.querySelector("form");
    const seed = (form?.querySelector("input[name=seed]") as HTMLInputElement | null)?.value.trim() ?? "";
    const gameSpecs = specs.get(game);
    // Send what differs from the defaults (all of it when the defaults are unknown).
    const options = Object.fromEntries(
      Object.entries(values).filter(([k, v]) => {
        const spec = gameSpecs?.find((s) => s.name === k);
        return gameSpecs === undefined || (spec !== undefined && spec.defaultValue !== v);
      }),
    );
    error = "";
    try {
      const res = await matches.createMatch(
        create(CreateMatchRequestSchema, {
          game,
          options,
          seats: seats.map((s) => (s === HUMAN ? SeatKind.HUMAN : SeatKind.BOT)),
          bots: Object.fromEntries(seats.flatMap((s, i) => (s === HUMAN ? [] : [[i, s]]))),
          seed: seed === "" ? undefined : BigInt(seed),
          timeControl: timeControl(),
        }),
      );
      rememberLinks(res.matchId, {
        seats: res.seatTokens.map((t) => ({ seat: t.seat ?? 0, token: t.token })),
        spectator: res.spectatorToken,
        owner: res.ownerToken,
      });
      const first = res.seatTokens[0];
      window.location.hash = matchLink(res.matchId, first ? first.token : res.spectatorToken);
    } catch (e) {
      error = describeError(e);
      render();
    }
  };

  render();
  listGames()
    .then((described) => {
      games = described.map((g) => g.info?.name ?? "").filter((n) => n !== "");
      specs = new Map(described.map((g) => [g.info?.name ?? "", g.optionSpecs]));
      botsOf = new Map(described.map((g) => [g.info?.name ?? "", g.bots]));
      // First the game with the fewest seats (the quickest table to try).
      const fewest = described.reduce<GameDescription | undefined>(
        (best, g) => (best === undefined || (g.info?.numPlayers ?? 0) < (best.info?.numPlayers ?? 0) ? g : best),
        undefined,
      );
      game = fewest?.info?.name ?? "";
      describe();
      render();
    })
    .catch((e) => {
      error = `the server did not list its games: ${describeError(e)}`;
      render();
    });
  return () => {};
}
