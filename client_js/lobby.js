// The lobby page (#/): make a challenge (game, each of its options from /api/games starting
// at its default, colour, rated or casual, to a named player or open to all), the challenges
// to you and yours, the open challenges, your games, the live games to watch, and who is
// online; every list follows the lobby feed of the connection.  A challenge may carry a time
// control (live minutes+increment, or correspondence days per move); the lists show it, and
// your games say which wait for your move and when your time runs out.  Knows no rules: the option
// form is built from the flags the server describes, named and explained in words
// (option_words.js), and the server's rules check each change (a refusal is shown, in words,
// before anything is sent).  The ratings panel (ratings.js) shows each
// game's leaderboard and a player's rating history, read again whenever a rated game ends.
// Imports api.js, connection.js (error titles), option_words.js, links.js (names link to their
// pages), ratings.js and room.js (element).

import { api } from "./api.js";
import { errorTitle } from "./connection.js";
import { choiceWords, fieldWords, optionsText, wordsForReason } from "./option_words.js";
import { playerLink } from "./links.js";
import { RatingsPanel } from "./ratings.js";
import { element } from "./room.js";

const TITLES = Object.freeze({ ankor: "Ankor", boche: "Boche", che: "Che", marque: "Marque", osbox: "Osbox" });
const COLOURS = Object.freeze([
  ["random", "Random"],
  ["mine", "I move first"],
  ["theirs", "They move first"],
]);

const TIME_CONTROLS = Object.freeze([
  ["", "No clock"],
  ["1+0", "Live 1+0"],
  ["3+2", "Live 3+2"],
  ["5+3", "Live 5+3"],
  ["10+5", "Live 10+5"],
  ["15+10", "Live 15+10"],
  ["1d", "1 day per move"],
  ["3d", "3 days per move"],
  ["3d/7d", "3 days per move, bank 7"],
  ["7d/14d", "7 days per move, bank 14"],
]);

// "Play the computer": a challenge to the bot account of a level (bots/accounts.py), or to
// `bot-match`, which the server sends to the level nearest your rating in the game; bots
// accept any casual challenge, in every game and option set.  Each level says how strong it
// plays the chosen game where the match bench measured it (`computer` of /api/games).
const COMPUTER_LEVELS = Object.freeze([
  ["", "no: a person"],
  ["bot-match", "computer, matching your level"],
  ["bot-1", "computer, level 1 (quick)"],
  ["bot-2", "computer, level 2"],
  ["bot-3", "computer, level 3"],
  ["bot-4", "computer, level 4 (strongest)"],
]);

const isBot = (player) => player.name.toLowerCase().startsWith("bot-");

const FIRST_MOVE = Object.freeze({ mine: "challenger moves first", theirs: "accepter moves first", random: "first move by lot" });

class LobbyPage {
  /** Shows the lobby in `root`, through `connection` (already open or reconnecting). */
  constructor(root, connection) {
    this.connection = connection;
    this.games = [];
    this.build(root);
  }

  build(root) {
    const h = element;
    this.gameSelect = h("select", { name: "game", id: "challenge-game" });
    this.gameSelect.addEventListener("change", () => this.renderOptions());
    this.optionsBox = h("fieldset", { class: "game-options" });
    this.optionsError = h("p", { class: "options-error", role: "alert" });
    this.submitButton = h("button", { type: "submit" }, ["Challenge"]);
    this.rulesLink = h("a", { class: "game-rules", href: "#/rules/boche" }, ["How to play"]);
    this.colourBox = h("fieldset", { class: "colour" }, [
      h("legend", {}, ["Colour"]),
      ...COLOURS.map(([value, label], index) => {
        const input = h("input", { type: "radio", name: "colour", value, id: `colour-${value}` });
        if (index === 0) input.checked = true;
        return h("label", { for: `colour-${value}` }, [input, ` ${label}`]);
      }),
    ]);
    this.rated = h("input", { type: "checkbox", name: "rated", id: "challenge-rated" });
    this.target = h("input", { name: "target", id: "challenge-target", autocomplete: "off", placeholder: "anyone" });
    this.computer = h("select", { name: "computer", id: "challenge-computer" }, COMPUTER_LEVELS.map(([value, label]) => h("option", { value }, [label])));
    this.computer.addEventListener("change", () => {
      this.target.disabled = this.computer.value !== "";
      this.rated.disabled = this.computer.value !== "" || (this.connection.player?.guest ?? true);
      if (this.computer.value !== "") this.rated.checked = false;
    });
    this.timeControl = h("select", { name: "time_control", id: "challenge-time-control" }, TIME_CONTROLS.map(([value, label]) => h("option", { value }, [label])));
    this.form = h("form", { class: "challenge-form", "aria-labelledby": "make-challenge" }, [
      h("h2", { id: "make-challenge" }, ["Make a challenge"]),
      h("div", { class: "game-line" }, [h("label", { for: "challenge-game" }, ["Game "]), this.gameSelect, this.rulesLink]),
      this.optionsBox,
      this.optionsError,
      this.colourBox,
      h("label", { for: "challenge-rated", class: "rated" }, [this.rated, " Rated"]),
      h("label", { for: "challenge-time-control" }, ["Clock "]),
      this.timeControl,
      h("label", { for: "challenge-target" }, ["Opponent (a name, or empty for an open challenge) "]),
      this.target,
      h("label", { for: "challenge-computer" }, ["Play the computer "]),
      this.computer,
      this.submitButton,
    ]);
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.submit();
    });
    this.errors = h("div", { class: "errors", role: "alert" });
    this.incoming = h("ul", { class: "incoming", "aria-label": "Challenges to you" });
    this.openList = h("ul", { class: "open-challenges", "aria-label": "Open challenges" });
    this.outgoing = h("ul", { class: "outgoing", "aria-label": "Your challenges" });
    this.mine = h("ul", { class: "my-games", "aria-label": "Your games" });
    this.live = h("ul", { class: "live-games", "aria-label": "Live games" });
    this.online = h("ul", { class: "online", "aria-label": "Online" });
    this.ratings = new RatingsPanel(TITLES, () => this.connection.player);
    const list = (title, node) => h("section", { class: "lobby-list" }, [h("h2", {}, [title]), node]);
    root.replaceChildren(
      h("section", { class: "lobby" }, [
        h("h1", {}, ["Lobby"]),
        this.errors,
        h("div", { class: "lobby-layout" }, [
          h("div", { class: "lobby-column" }, [this.form]),
          h("div", { class: "lobby-column" }, [
            list("Challenges to you", this.incoming),
            list("Open challenges", this.openList),
            list("Your challenges", this.outgoing),
            list("Your games", this.mine),
          ]),
          h("div", { class: "lobby-column" }, [list("Live games", this.live), list("Online", this.online), this.ratings.node]),
        ]),
      ]),
    );
  }

  /** Loads the games and follows the lobby; errors are shown on the page. */
  async open() {
    try {
      this.games = (await api("/api/games")).games;
      this.gameSelect.replaceChildren(...this.games.map((g) => element("option", { value: g.name }, [TITLES[g.name] ?? g.name])));
      this.renderOptions();
      this.ratings.setGames(this.games.map((g) => g.name));
    } catch (error) {
      this.showError(error);
    }
    if (this.connection.lobby !== null) this.update(this.connection.lobby);
    try {
      await this.connection.followLobby();
    } catch (error) {
      this.showError(error);
    }
  }

  /** Each computer level's label, with its measured rating in `game` where there is one:
   * "computer, level 3, about 1,600". */
  labelComputerLevels(game) {
    for (const [index, [value, label]] of COMPUTER_LEVELS.entries()) {
      const rating = game?.computer?.[value.slice("bot-".length)];
      const about = rating === undefined ? "" : `, about ${(Math.round(rating / 10) * 10).toLocaleString("en")}`;
      this.computer.options[index].textContent = label + about;
    }
  }

  /** The option inputs of the chosen game: one per option field, starting at its default. */
  renderOptions() {
    const game = this.games.find((g) => g.name === this.gameSelect.value);
    this.labelComputerLevels(game);
    const inputs = [element("legend", {}, ["Options (the defaults are the rules page's)"])];
    this.rulesLink.setAttribute("href", `#/rules/${this.gameSelect.value}`);
    this.optionFields = [];
    if (game !== undefined) {
      const fields = new Map();
      for (const flag of game.flags) {
        if (!fields.has(flag.field)) fields.set(flag.field, []);
        fields.get(flag.field).push(flag);
      }
      for (const [field, flags] of fields) inputs.push(this.optionInput(game, field, flags));
    }
    this.optionsBox.replaceChildren(...inputs);
    this.checkOptions();
    this.rated.disabled = this.connection.player?.guest ?? true;
  }

  /**
   * One option in words (option_words.js): a number with its unit, or a choice among the
   * words of its flags; each starts at the game's default, which is the rules page's, and says
   * what it does.  An empty number means the default (a word such as "off" when the default is
   * one); other named numbers ("unlimited") are a box to tick.
   */
  optionInput(game, field, flags) {
    const id = `option-${field}`;
    const initial = game.defaults[field];
    const words = fieldWords(game.name, field);
    const help = element("small", { class: "option-help", id: `${id}-help` }, [words.explain]);
    const number = flags.find((f) => f.takes_number);
    if (number !== undefined) {
      const named = new Map((number.names ?? []).map(([value, word]) => [value, word]));
      const attrs = { type: "number", id, name: field, value: named.has(initial) ? "" : String(initial), "aria-describedby": help.id };
      if (named.has(initial)) attrs.placeholder = named.get(initial);
      if (number.minimum !== null) attrs.min = String(number.minimum);
      if (number.maximum !== null) attrs.max = String(number.maximum);
      const input = element("input", attrs);
      input.addEventListener("input", () => this.checkOptions());
      const line = [element("label", { for: id }, [`${words.label} `]), input];
      if (words.unit) line.push(element("span", { class: "unit" }, [` ${words.unit}`]));
      const boxes = [...named].filter(([value]) => value !== initial).map(([value, word]) => {
        const box = element("input", { type: "checkbox", id: `${id}-${word}`, "data-value": String(value) });
        box.addEventListener("change", () => {
          input.disabled = box.checked;
          this.checkOptions();
        });
        line.push(element("label", { for: `${id}-${word}`, class: "option-word" }, [box, ` ${word}`]));
        return box;
      });
      this.optionFields.push(() => {
        const ticked = boxes.find((box) => box.checked);
        if (ticked !== undefined) return `-${number.name}=${ticked.dataset.value}`;
        return input.value !== "" && Number(input.value) !== initial ? `-${number.name}=${input.value}` : "";
      });
      return element("div", { class: "option", "data-field": field }, [element("div", { class: "option-line" }, line), help]);
    }
    const select = element("select", { id, name: field, "aria-describedby": help.id });
    const choices = flags.map((flag) => ({ value: flag.value, flag: flag.value === initial ? "" : `-${flag.name}` }));
    if (!flags.some((f) => f.value === initial)) choices.unshift({ value: initial, flag: "" });
    for (const choice of choices) {
      const text = choiceWords(game.name, field, choice.value) + (choice.flag === "" ? " (default)" : "");
      select.append(element("option", { value: choice.flag }, [text]));
    }
    select.selectedIndex = choices.findIndex((c) => c.flag === "");
    select.addEventListener("change", () => this.checkOptions());
    this.optionFields.push(() => select.value);
    return element("div", { class: "option", "data-field": field }, [element("div", { class: "option-line" }, [element("label", { for: id }, [`${words.label} `]), select]), help]);
  }

  /** The options as text, checked by the server's rules: a refusal is shown in words and
   * the challenge cannot be sent until it is put right.  Returns whether they are valid. */
  async checkOptions() {
    const game = this.games.find((g) => g.name === this.gameSelect.value);
    if (game === undefined) return false;
    const options = this.optionFields.map((read) => read()).filter((text) => text !== "").join(" ");
    const asked = (this.optionsAsked = `${game.name} ${options}`);
    let reason = "";
    const bad = this.optionFields.length > 0 && [...this.optionsBox.querySelectorAll("input[type=number]")].find((input) => !input.disabled && !input.checkValidity());
    if (bad) {
      reason = `${fieldWords(game.name, bad.name).label}: ${bad.validationMessage}`;
    } else {
      try {
        await api(`/api/games/${encodeURIComponent(game.name)}/options?text=${encodeURIComponent(options)}`);
      } catch (error) {
        // A refusal is worded for the form; an unreachable server is no reason (it checks
        // again when the challenge is sent).
        if (error.status !== undefined) reason = wordsForReason(game.name, game.flags, error.message);
      }
    }
    if (asked !== this.optionsAsked) return false; // a newer check is under way
    this.optionsError.textContent = reason === "" ? "" : `These options cannot be played: ${reason}`;
    this.submitButton.disabled = reason !== "";
    return reason === "";
  }

  async submit() {
    if (!(await this.checkOptions())) return;
    const colour = this.form.querySelector("input[name=colour]:checked")?.value ?? "random";
    const options = this.optionFields.map((read) => read()).filter((text) => text !== "").join(" ");
    const bot = this.computer.value;
    try {
      await this.connection.challenge({ game: this.gameSelect.value, options, colour, rated: bot === "" && this.rated.checked, target: bot || this.target.value.trim(), timeControl: this.timeControl.value });
      this.errors.replaceChildren();
      this.target.value = "";
    } catch (error) {
      this.showError(error);
    }
  }

  /** Welcomed (again): the player is known now, so is whether they may play rated games. */
  render() {
    this.rated.disabled = this.connection.player?.guest ?? true;
    if (this.connection.lobby !== null) this.update(this.connection.lobby);
    this.ratings.refresh();
  }

  /** The lobby changed (a snapshot when `event` is null); a rated game's end moves ratings. */
  update(lobby, event = null) {
    if (event?.t === "finished" && event.game.rated) this.ratings.refresh();
    const me = this.connection.player?.id ?? null;
    this.rated.disabled = this.connection.player?.guest ?? true;
    const fill = (node, items, row, empty) => node.replaceChildren(...(items.length > 0 ? items.map(row) : [element("li", { class: "empty" }, [empty])]));
    fill(this.incoming, lobby.incoming, (c) => this.challengeRow(c, [["Accept", () => this.accept(c.id)], ["Decline", () => this.call(() => this.connection.decline(c.id))]]), "None.");
    fill(this.openList, lobby.open, (c) => this.challengeRow(c, c.challenger.id === me ? [["Cancel", () => this.call(() => this.connection.cancel(c.id))]] : [["Accept", () => this.accept(c.id)]]), "None.");
    fill(this.outgoing, lobby.outgoing, (c) => this.challengeRow(c, [["Cancel", () => this.call(() => this.connection.cancel(c.id))]]), "None.");
    // Games waiting for your move first, the nearest deadline first.
    const waiting = (g) => (g.waiting_for === me ? 0 : 1);
    const mine = [...lobby.mine].sort((a, b) => waiting(a) - waiting(b) || (a.deadline ?? Infinity) - (b.deadline ?? Infinity));
    fill(this.mine, mine, (g) => this.gameRow(g, "Play", g.waiting_for === me), "None.");
    fill(this.live, lobby.live, (g) => this.gameRow(g, g.players.some((p) => p.id === me) ? "Play" : "Watch"), "No games are being played.");
    fill(this.online, lobby.online, (p) => element("li", { class: "online-player" }, [playerLink(p.player), p.player.guest ? " (guest)" : isBot(p.player) ? " (computer)" : ""]), "Nobody.");
  }

  challengeRow(challenge, actions) {
    const who = challenge.target === null ? [playerLink(challenge.challenger), ", open to anyone"] : [playerLink(challenge.challenger), " to ", playerLink(challenge.target)];
    const parts = [
      element("span", { class: "game" }, [TITLES[challenge.game] ?? challenge.game]),
      challenge.options ? element("span", { class: "options", title: challenge.options }, [` ${this.optionWords(challenge)}`]) : "",
      ` ${challenge.rated ? "rated" : "casual"}${timeControlText(challenge.time_control)}, `,
      ...who,
      ` (${FIRST_MOVE[challenge.colour] ?? challenge.colour}) `,
    ];
    for (const [label, run] of actions) {
      const button = element("button", { type: "button", "data-action": label.toLowerCase(), "data-challenge": challenge.id }, [label]);
      button.addEventListener("click", run);
      parts.push(button, " ");
    }
    return element("li", { class: "challenge", "data-challenge": challenge.id }, parts);
  }

  /** A challenge's options in words (as text until the games' flags are loaded). */
  optionWords(challenge) {
    const game = this.games.find((g) => g.name === challenge.game);
    return game === undefined ? challenge.options : optionsText(game.name, game.flags, challenge.options);
  }

  gameRow(game, verb, myMove = false) {
    const link = element("a", { href: `#/room/${encodeURIComponent(game.room_id)}`, "data-room": game.room_id }, [verb]);
    const parts = [
      element("span", { class: "game" }, [TITLES[game.game] ?? game.game]),
      " ",
      playerLink(game.players[0]),
      " vs ",
      playerLink(game.players[1]),
      `${timeControlText(game.time_control)}, move ${game.move_number}, ${game.spectators} watching `,
    ];
    if (myMove) {
      const due = game.deadline ? `, time runs out ${new Date(game.deadline * 1000).toLocaleString()}` : "";
      parts.push(element("strong", { class: "your-move" }, [`your move${due}`]), " ");
    }
    parts.push(link);
    return element("li", { class: myMove ? "live-game waiting" : "live-game", "data-room": game.room_id }, parts);
  }

  async accept(challengeId) {
    try {
      const room = await this.connection.accept(challengeId);
      location.hash = `#/room/${encodeURIComponent(room)}`;
    } catch (error) {
      this.showError(error);
    }
  }

  async call(request) {
    try {
      await request();
    } catch (error) {
      this.showError(error);
    }
  }

  showError(error) {
    const code = error.code ?? "error";
    const item = element("p", { class: "error", "data-code": code }, [element("strong", {}, [errorTitle(code)]), ": ", error.message]);
    this.errors.append(item);
    while (this.errors.childElementCount > 3) this.errors.firstElementChild.remove();
  }
}

/** ", 5+3" for a live time control, ", 3d per move" for correspondence, nothing without. */
function timeControlText(control) {
  if (!control) return "";
  return control.includes("+") ? `, ${control}` : `, ${control} per move`;
}

export { LobbyPage };
