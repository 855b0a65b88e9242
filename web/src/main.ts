// The cardhouse web table: routes in the address's fragment (see pages/links.ts).
import "./style.css";
import { lobbyPage } from "./pages/lobby";
import { parseRoute } from "./pages/links";
import { matchPage } from "./pages/match";
import { recordPage } from "./pages/record";

const root = document.getElementById("app") as HTMLElement;
let dispose: () => void = () => {};

function route(): void {
  dispose();
  const r = parseRoute(window.location.hash);
  switch (r.page) {
    case "match":
      dispose = matchPage(root, r.matchId, r.token);
      break;
    case "record":
      dispose = recordPage(root, r.matchId, r.token);
      break;
    case "lobby":
      dispose = lobbyPage(root);
      break;
  }
}

window.addEventListener("hashchange", route);
route();
