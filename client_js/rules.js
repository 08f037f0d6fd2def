// A rules page (#/rules/<page>, or #/rules/<page>/<heading> to open at a section): the
// project's own rules of one game (docs/rules/<page>.md, rendered by the server with its
// figures), with the list of pages and, for a game, the buttons to play it.  The server
// makes every link of the page an address of this site.
// Imports front.js's neighbours only: pairing.js (the game's pool) and room.js (element).

import { controlWords } from "./pairing.js";
import { element } from "./room.js";

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
    root.replaceChildren(h("section", { class: "rules" }, [nav, play, this.article]));
  }

  async open() {
    try {
      const response = await fetch(`/api/rules/${encodeURIComponent(this.name)}`);
      const answer = await response.json().catch(() => ({}));
      if (!response.ok) throw new Error(answer.message ?? `the server answered ${response.status}`);
      // The server renders the project's own Markdown with raw HTML escaped.
      this.article.innerHTML = answer.html;
      this.article.setAttribute("aria-busy", "false");
      document.title = `${answer.title}: the rules`;
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
