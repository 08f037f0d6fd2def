// The chats of a game page, kept apart as Lichess keeps them: the two players talk in the
// players' chat, which spectators never see; spectators talk in theirs, which the players
// may open once the game is over (a switch turns it off again for their own view).  The
// lines come from the server (its kept lines when the room is joined, then each new line);
// muting a user hides their lines on this browser only, and a report sends one line to the
// operators.  Knows nothing of the game.
// Imports protocol.js (the channels and the length limit) and connection.js (error titles).

import { errorTitle } from "./connection.js";
import { ChatChannel, MAX_CHAT_LENGTH, Role } from "./protocol.js";

const MUTED_KEY = "browne-games.chat-muted"; // [{id, name}] of the users this browser mutes
const HIDE_SPECTATORS_KEY = "browne-games.hide-spectator-chat"; // "1": a player's choice
const TITLES = Object.freeze({ [ChatChannel.PLAYERS]: "Players", [ChatChannel.SPECTATORS]: "Spectators" });

class ChatPanel {
  /** The chats of room `roomId`, drawn into `root` (the page's chat slot). */
  constructor(root, connection, roomId) {
    this.connection = connection;
    this.roomId = roomId;
    this.role = null; // Role once joined
    this.over = false;
    this.lines = new Map([
      [ChatChannel.PLAYERS, []],
      [ChatChannel.SPECTATORS, []],
    ]);
    this.loaded = new Set(); // channels whose kept lines were read since joining
    this.channel = null; // the chat shown
    this.reported = new Set(); // line ids reported from this page
    this.reporting = new Set(); // line ids whose report is on its way
    this.muted = readMuted();
    this.build(root);
    this.stopListening = connection.listenChat(roomId, (event) => this.heard(event));
  }

  build(root) {
    this.tabs = element("div", { class: "chat-tabs", role: "tablist" });
    this.list = element("ol", { class: "chat-lines", "aria-live": "polite", "aria-label": "Chat messages" });
    this.empty = element("p", { class: "chat-empty" });
    this.input = element("input", { name: "chat", maxlength: String(MAX_CHAT_LENGTH), autocomplete: "off", "aria-label": "Chat message", placeholder: "Say something…" });
    this.sendButton = element("button", { type: "submit" }, ["Send"]);
    this.form = element("form", { class: "chat-form" }, [this.input, this.sendButton]);
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.say();
    });
    this.error = element("p", { class: "chat-error", role: "alert" });
    this.mutedLine = element("p", { class: "chat-muted-list" });
    this.spectatorSwitch = element("input", { type: "checkbox", class: "chat-spectators-switch" });
    this.spectatorSwitch.addEventListener("change", () => {
      localStorage.setItem(HIDE_SPECTATORS_KEY, this.spectatorSwitch.checked ? "" : "1");
      if (!this.spectatorSwitch.checked && this.channel === ChatChannel.SPECTATORS) this.channel = ChatChannel.PLAYERS;
      this.refresh();
    });
    this.switchLabel = element("label", { class: "chat-switch" }, [this.spectatorSwitch, " Show the spectators' chat"]);
    this.node = element("section", { class: "chat", "aria-label": "Chat", hidden: "" }, [this.tabs, this.list, this.empty, this.form, this.error, this.mutedLine, this.switchLabel]);
    root.replaceChildren(this.node);
  }

  close() {
    this.stopListening();
  }

  /** The room changed: a finished game opens the spectators' chat to the players. */
  update(doc) {
    this.over = doc.outcome !== null;
    this.refresh();
  }

  /** The chats this viewer may read now, in tab order. */
  channels() {
    if (this.role === Role.SPECTATOR) return [ChatChannel.SPECTATORS];
    if (this.role !== Role.PLAYER) return [];
    const hidden = localStorage.getItem(HIDE_SPECTATORS_KEY) === "1";
    return this.over && !hidden ? [ChatChannel.PLAYERS, ChatChannel.SPECTATORS] : [ChatChannel.PLAYERS];
  }

  /** What the connection heard: the room joined (again), or lines of a chat. */
  heard(event) {
    if (event.t === "joined") {
      this.role = event.role;
      this.loaded.clear(); // lines may have been said while away: read them again
      this.refresh();
      return;
    }
    this.keep(event.channel, event.lines, event.history);
  }

  /** Keeps lines of a chat, each once, oldest first; `whole` lines are everything the server
   * keeps, yet a line pushed while they were read may come first, and is kept too. */
  keep(channel, lines, whole) {
    const held = this.lines.get(channel);
    const merged = whole ? [...lines] : held;
    const ids = new Set(merged.map((line) => line.id));
    const newest = whole && lines.length > 0 ? lines[lines.length - 1].at : -Infinity;
    for (const line of whole ? held : lines) {
      if (!ids.has(line.id) && (!whole || line.at >= newest)) merged.push(line);
    }
    merged.sort((a, b) => a.at - b.at);
    this.lines.set(channel, merged);
    if (channel === this.channel) this.renderLines();
  }

  refresh() {
    const channels = this.channels();
    this.node.hidden = channels.length === 0;
    if (channels.length === 0) return;
    if (!channels.includes(this.channel)) this.channel = channels[0];
    for (const channel of channels) {
      if (!this.loaded.has(channel)) {
        this.loaded.add(channel);
        this.connection.chatHistory(this.roomId, channel).then((lines) => this.keep(channel, lines, true), (error) => {
          this.loaded.delete(channel);
          this.showError(error);
        });
      }
    }
    this.tabs.replaceChildren(
      ...channels.map((channel) => {
        const tab = element("button", { type: "button", role: "tab", class: "chat-tab", "data-channel": channel, "aria-selected": String(channel === this.channel) }, [channels.length > 1 ? TITLES[channel] : `${TITLES[channel]}' chat`]);
        tab.addEventListener("click", () => {
          this.channel = channel;
          this.refresh();
        });
        return tab;
      }),
    );
    this.node.dataset.channel = this.channel;
    this.switchLabel.hidden = !(this.role === Role.PLAYER && this.over);
    this.spectatorSwitch.checked = channels.includes(ChatChannel.SPECTATORS);
    this.renderLines();
  }

  renderLines() {
    const me = this.connection.player?.id ?? null;
    const lines = this.lines.get(this.channel) ?? [];
    const shown = lines.filter((line) => !this.muted.has(line.player));
    this.list.replaceChildren(...shown.map((line) => this.lineNode(line, line.player === me)));
    this.list.scrollTop = this.list.scrollHeight;
    this.empty.textContent = shown.length > 0 ? "" : this.channel === ChatChannel.PLAYERS ? "Nothing said yet. Spectators cannot read this chat." : "Nothing said yet. The players cannot read this chat during the game.";
    const muted = [...this.muted.values()];
    this.mutedLine.replaceChildren(...(muted.length === 0 ? [] : ["Muted: ", ...muted.flatMap((user, i) => [i > 0 ? ", " : "", this.unmuteButton(user)])]));
  }

  lineNode(line, mine) {
    const name = element("span", { class: "chat-name" }, [line.name]);
    const text = element("span", { class: "chat-text" }, [line.text]);
    const item = element("li", { class: mine ? "chat-line mine" : "chat-line", "data-id": line.id, title: new Date(line.at * 1000).toLocaleTimeString() }, [name, " ", text]);
    if (!mine) {
      const mute = element("button", { type: "button", class: "chat-mute", title: `Hide ${line.name}'s messages`, "aria-label": `Mute ${line.name}` }, ["Mute"]);
      mute.addEventListener("click", () => this.mute(line.player, line.name));
      const reported = this.reported.has(line.id);
      const report = element("button", { type: "button", class: "chat-report", title: "Report this message to the operators", "aria-label": `Report ${line.name}'s message` }, [reported ? "Reported" : "Report"]);
      report.disabled = reported || this.reporting.has(line.id);
      report.addEventListener("click", () => this.report(line, report));
      item.append(element("span", { class: "chat-actions" }, [mute, report]));
      item.tabIndex = 0; // a tap or Tab on the line shows its buttons where nothing hovers
    }
    return item;
  }

  unmuteButton(user) {
    const button = element("button", { type: "button", class: "chat-unmute", title: `Show ${user.name}'s messages again` }, [user.name, " ×"]);
    button.addEventListener("click", () => {
      this.muted.delete(user.id);
      writeMuted(this.muted);
      this.renderLines();
    });
    return button;
  }

  mute(player, name) {
    this.muted.set(player, { id: player, name });
    writeMuted(this.muted);
    this.renderLines();
  }

  /** Reports a line; the lines are drawn again after the answer, since the room may have
   * redrawn them (and this button) meanwhile. */
  async report(line, button) {
    button.disabled = true;
    this.reporting.add(line.id);
    try {
      await this.connection.reportChat(this.roomId, this.channel, line.id);
      this.reported.add(line.id);
      this.error.textContent = "";
    } catch (error) {
      this.showError(error);
    } finally {
      this.reporting.delete(line.id);
      this.renderLines();
    }
  }

  async say() {
    const text = this.input.value.trim();
    if (text === "" || this.sendButton.disabled) return;
    const channel = this.channel;
    this.sendButton.disabled = true;
    try {
      const reply = await this.connection.chat(this.roomId, channel, text);
      this.keep(channel, reply.lines, false);
      this.input.value = "";
      this.error.textContent = "";
    } catch (error) {
      this.showError(error);
    } finally {
      this.sendButton.disabled = false;
    }
  }

  showError(error) {
    this.error.textContent = `${errorTitle(error.code)}: ${error.message}`;
  }
}

function readMuted() {
  try {
    const users = JSON.parse(localStorage.getItem(MUTED_KEY) ?? "[]");
    return new Map(users.map((user) => [user.id, user]));
  } catch {
    return new Map();
  }
}

function writeMuted(muted) {
  localStorage.setItem(MUTED_KEY, JSON.stringify([...muted.values()]));
}

/** An HTML element with attributes and children (strings become text). */
function element(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

export { ChatPanel };
