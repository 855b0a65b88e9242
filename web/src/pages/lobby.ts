// Create a match: the game, its options, who plays each seat.
import { create } from "@bufbuild/protobuf";
import type { OptionSpec } from "../gen/cardhouse/v1/game_pb";
import { OptionKind } from "../gen/cardhouse/v1/game_pb";
import { CreateMatchRequestSchema, SeatKind } from "../gen/cardhouse/v1/matches_pb";
import { describeError, engine, matches } from "../api";
import { h } from "../dom";
import { SEAT_KINDS } from "../format";
import { matchLink, rememberLinks } from "./links";

const GAMES = ["jass", "klaberjass", "cribbage", "avinas"];

/** Seats of a game under its options (Cribbage: its `players` option). */
export function seatCount(game: string, options: Record<string, string>): number {
  if (game === "cribbage") return Number(options.players ?? "2") || 2;
  return game === "klaberjass" ? 2 : 4;
}

export function lobbyPage(root: HTMLElement): () => void {
  let specs = new Map<string, OptionSpec[]>();
  let game = "klaberjass";
  const values: Record<string, string> = {};
  let seats: SeatKind[] = [];
  let error = "";

  const optionInput = (spec: OptionSpec): HTMLElement => {
    const set = (e: Event) => {
      values[spec.name] = (e.target as HTMLInputElement).value;
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
    const n = seatCount(game, values);
    seats = Array.from({ length: n }, (_, i) => seats[i] ?? (i === 0 ? SeatKind.HUMAN : SeatKind.HEURISTIC_BOT));
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
            h("select", { name: "game", onchange: (e: Event) => { game = (e.target as HTMLSelectElement).value; clear(values); render(); } },
              GAMES.map((g) => h("option", { value: g, selected: g === game }, g)))),
          h("fieldset", {}, h("legend", {}, "options"),
            gameSpecs
              ? gameSpecs.map(optionInput)
              : h("label", { class: "option" }, h("span", {}, "options (key=value, comma-separated)"),
                  h("input", { name: "options-text", value: Object.entries(values).map(([k, v]) => `${k}=${v}`).join(","),
                    onchange: (e: Event) => { parseOptions((e.target as HTMLInputElement).value); render(); } }))),
          h("fieldset", {}, h("legend", {}, "seats"),
            seats.map((kind, i) =>
              h("label", { class: "option" }, h("span", {}, `seat ${i}`),
                h("select", { name: `seat-${i}`, onchange: (e: Event) => { seats[i] = Number((e.target as HTMLSelectElement).value) as SeatKind; } },
                  SEAT_KINDS.map((k) => h("option", { value: k.kind, selected: k.kind === kind }, k.label)))))),
          h("label", { class: "option" }, h("span", {}, "seed (optional)"), h("input", { name: "seed", inputmode: "numeric", pattern: "[0-9]*" })),
          h("button", { type: "submit", class: "primary" }, "Create match"),
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
        create(CreateMatchRequestSchema, { game, options, seats, seed: seed === "" ? undefined : BigInt(seed) }),
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
  // The options of each game, from the Engine service when the server offers it.
  engine
    .listGames({})
    .then((res) => {
      specs = new Map(res.games.map((g) => [g.info?.name ?? "", g.optionSpecs]));
      render();
    })
    .catch(() => {
      /* The Engine service is off or needs a credential: options are typed as text. */
    });
  return () => {};
}
