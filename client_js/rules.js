// A rules page (#/rules/<page>, or #/rules/<page>/<heading> to open at a section): the
// project's own rules of one game (docs/rules/<page>.md, rendered by the server with its
// figures), with the list of pages and, for a game, the buttons to play it.  The server
// makes every link of the page an address of this site.  A game's page starts with its
// worked example on a board the reader steps through (the positions from
// /api/rules/<game>/example, drawn by the game page's own modules).
// Imports api.js, board.js, pairing.js (time controls in words) and room.js (the game modules,
// element).

import { api } from "./api.js";
import { BoardView } from "./board.js";
import { controlWords } from "./pairing.js";
import { GAMES, element } from "./room.js";

const PAGES = Object.freeze([
  ["boche", "Boche"],
  ["che", "Che"],
  ["osbox", "Osbox"],
  ["ankor", "Ankor"],
  ["marque", "Marque"],
  ["pyramid", "The pyramid board (Boche, Ankor)"],
]);

class RulesPage {
  /** Shows rules page `name` in `root`, scrolled to `heading` (a section's anchor) if given. */
  constructor(root, name, heading = null) {
    this.name = name;
    this.heading = heading;
    const h = element;
    this.article = h("article", { class: "rules-text", "aria-busy": "true" }, [h("p", {}, ["Loading the rules…"])]);
    const nav = h(
      "nav",
      { class: "rules-nav", "aria-label": "Rules pages" },
      PAGES.map(([page, title]) => h("a", { href: `#/rules/${page}`, "aria-current": page === name ? "page" : "false" }, [title])),
    );
    const play = PAGES.slice(0, 5).some(([page]) => page === name)
      ? h("p", { class: "rules-play" }, [h("a", { class: "button", href: `#/play/${name}` }, [`Play ${PAGES.find(([p]) => p === name)[1]}`]), ` — quick pairing from ${controlWords("3+2")} to ${controlWords("3d")}, or the computer.`])
      : "";
    this.example = h("section", { class: "rules-example", "aria-labelledby": "example-heading", hidden: "" });
    root.replaceChildren(h("section", { class: "rules" }, [nav, play, this.example, this.article]));
  }

  /** The worked example, on a board with buttons to step through it. */
  async openExample() {
    const module = GAMES[this.name];
    if (module === undefined) return;
    this.steps = (await api(`/api/rules/${encodeURIComponent(this.name)}/example`)).steps;
    this.step = 0;
    const h = element;
    this.exampleCaption = h("p", { class: "example-caption", "aria-live": "polite" });
    const boardBox = h("div", { class: "example-board" });
    this.exampleBoard = new BoardView(boardBox, {});
    const button = (label, text, to) => {
      const node = h("button", { type: "button", "aria-label": label, title: label }, [text]);
      node.addEventListener("click", () => this.showStep(to()));
      return node;
    };
    this.stepButtons = [
      button("First position", "«", () => 0),
      button("Previous move", "‹", () => this.step - 1),
      button("Next move", "›", () => this.step + 1),
      button("Last position", "»", () => this.steps.length - 1),
    ];
    this.stepCount = h("span", { class: "example-count" });
    this.example.replaceChildren(
      h("h2", { id: "example-heading" }, ["Replay the worked example"]),
      boardBox,
      this.exampleCaption,
      h("div", { class: "example-buttons" }, [...this.stepButtons, this.stepCount]),
    );
    this.example.hidden = false;
    this.showStep(0);
  }

  showStep(index) {
    this.step = Math.max(0, Math.min(this.steps.length - 1, index));
    const step = this.steps[this.step];
    const drawn = GAMES[this.name].draw(step.data);
    this.exampleBoard.render({ viewBox: drawn.viewBox, label: step.caption, items: drawn.items, overlay: drawn.highlights ?? [], targets: [] });
    this.exampleCaption.textContent = step.caption;
    this.stepCount.textContent = `position ${this.step + 1} of ${this.steps.length}`;
    const [first, previous, next, last] = this.stepButtons;
    first.disabled = previous.disabled = this.step === 0;
    next.disabled = last.disabled = this.step === this.steps.length - 1;
  }

  async open() {
    try {
      const answer = await api(`/api/rules/${encodeURIComponent(this.name)}`);
      // The server renders the project's own Markdown with raw HTML escaped.
      this.article.innerHTML = answer.html;
      this.article.setAttribute("aria-busy", "false");
      document.title = `${answer.title}: the rules`;
      await this.openExample().catch(() => {}); // the page reads without it
      const target = this.heading === null ? null : document.getElementById(`${this.name}-${this.heading}`);
      if (target !== null) target.scrollIntoView();
      else window.scrollTo(0, 0);
    } catch (error) {
      this.showError(error);
    }
  }

  close() {
    document.title = "Boche, Che, Osbox, Ankor, Marque";
  }

  render() {}

  showError(error) {
    this.article.replaceChildren(element("p", { class: "error", role: "alert" }, [`Could not load the rules: ${error.message}`]));
  }
}

export { PAGES, RulesPage };
