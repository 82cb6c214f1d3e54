// A seat's page at `ruleplay serve`: the seat's view, fetched from /api/TOKEN and kept current by asking for
// the view after the version shown (the server answers when the game changes). Text goes in through
// textContent only; the picture is SVG written (and escaped) by ruleplay. A move is played by its button, or
// by clicking the places and pieces it names on the picture: each click narrows the moves to those naming
// everything clicked, and the one move left is played.
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const token = location.pathname.split("/").pop();
  const api = "/api/" + encodeURIComponent(token) + "/";
  let shown = null; // the view on the page
  let picks = []; // what was clicked on the picture, as canonical JSON
  const canon = (value) => JSON.stringify(value);

  function seatName(p) { return p === null ? "" : p < 0 ? "chance" : "player " + p; }

  function ruleSpan(rule, rules) {
    const span = document.createElement("span");
    span.className = "rule";
    span.textContent = rule;
    if (rules[rule] !== undefined) span.title = rule + ": " + rules[rule];
    return span;
  }

  function candidates() {
    return shown.moves.filter((m) => picks.every((p) => m.args.some((a) => canon(a) === p)));
  }

  function drawChoices() {
    const list = $("choices");
    list.replaceChildren();
    const left = new Set(candidates().map((m) => m.text));
    for (const m of shown.moves) {
      const item = document.createElement("li");
      const button = document.createElement("button");
      button.textContent = m.text;
      button.title = m.rules.join("\n"); // the rules of the move's action, from the spec
      button.addEventListener("click", () => send("move", { move: m.text, version: shown.version }));
      item.appendChild(button);
      item.classList.toggle("dim", !left.has(m.text));
      list.appendChild(item);
    }
    $("picked").textContent = picks.length ? "picked: " + picks.join(", ") + " (click it again to let go)" : "";
    const reachable = new Set();
    for (const m of candidates()) for (const a of m.args) reachable.add(canon(a));
    document.querySelectorAll("#picture [data-pick]").forEach((el) => {
      const pick = canon(JSON.parse(el.getAttribute("data-pick")));
      el.classList.toggle("choosable", shown.moves.length > 0 && reachable.has(pick) && !picks.includes(pick));
      el.classList.toggle("picked", picks.includes(pick));
    });
  }

  function clicked(el) {
    if (!shown || !shown.moves.length) return;
    const pick = canon(JSON.parse(el.getAttribute("data-pick")));
    if (picks.includes(pick)) picks = picks.filter((p) => p !== pick);
    else if (shown.moves.some((m) => m.args.some((a) => canon(a) === pick))) {
      picks.push(pick);
      if (candidates().length === 0) picks = [pick];
    } else return;
    const left = candidates();
    if (left.length === 1) { send("move", { move: left[0].text, version: shown.version }); return; }
    drawChoices();
  }

  function drawLog(view) {
    const list = $("moves");
    list.replaceChildren();
    let round = null;
    view.log.forEach((m, i) => {
      if (view.rounds && m.round !== round) {
        if (round !== null) {
          const end = document.createElement("li");
          end.className = "flow";
          end.textContent = "end of round " + round;
          list.appendChild(end);
        }
        round = m.round;
        const head = document.createElement("li");
        head.className = "round-head";
        head.textContent = "round " + round;
        list.appendChild(head);
      }
      const item = document.createElement("li");
      item.className = "move";
      item.value = m.n;
      item.textContent = seatName(m.player) + ": " + m.move + (m.forced ? " (the only move, played for you)" : "");
      for (const e of m.events) {
        const line = document.createElement("div");
        line.className = "event";
        line.textContent = e.text;
        if (e.rule !== null) { line.append(" "); line.appendChild(ruleSpan(e.rule, view.rules)); }
        item.appendChild(line);
      }
      if (i === view.log.length - 1) item.classList.add("current");
      list.appendChild(item);
    });
    list.scrollTop = list.scrollHeight; // the newest move in sight, without scrolling the page
  }

  function draw(view) {
    if (shown && view.version < shown.version) return; // an answer overtaken by a newer one
    const changed = !shown || shown.version !== view.version;
    shown = view;
    if (changed) picks = [];
    $("title").textContent = view.title + " (you are player " + view.seat + ")";
    document.title = view.title + ": player " + view.seat;
    $("picture").innerHTML = view.picture;
    $("picture").querySelectorAll("[data-pick]").forEach((el) => el.addEventListener("click", () => clicked(el)));
    const status = $("status");
    status.className = "";
    if (view.error !== null) status.textContent = "the game stopped: " + view.error;
    else if (view.over) {
      status.textContent = "game over: " + (view.result.winners.length
        ? view.result.winners.map(seatName).join(", ") + (view.result.winners.length > 1 ? " win" : " wins") : "a draw");
    } else if (view.moves.length) { status.textContent = "your turn"; status.className = "your-turn"; }
    else if (view.thinking !== null) status.textContent = seatName(view.thinking) + " (" + view.seats[view.thinking].who + ") is thinking…";
    else status.textContent = "waiting for " + seatName(view.to_move);
    const panel = $("score-panel");
    panel.replaceChildren();
    view.seats.forEach((seat, p) => {
      const row = document.createElement("tr");
      const swatch = document.createElement("td");
      const dot = document.createElement("span");
      dot.className = "swatch";
      dot.style.background = seat.colour; // a colour ruleplay chose (#rrggbb), never text from a ruleset
      swatch.appendChild(dot);
      const name = document.createElement("td");
      name.textContent = seat.name + " (" + seat.who + ")" + (view.to_move === p ? ", to move" : "");
      const score = document.createElement("td");
      score.className = "score";
      score.textContent = view.over ? view.result.scores[p] : "";
      row.append(swatch, name, score);
      panel.appendChild(row);
    });
    $("yours").style.display = view.moves.length || view.can_undo ? "" : "none";
    $("undo").disabled = !view.can_undo;
    const priv = $("private");
    priv.replaceChildren();
    for (const line of view.private) {
      const item = document.createElement("li");
      item.textContent = line;
      priv.appendChild(item);
    }
    drawLog(view);
    drawChoices();
  }

  async function send(what, body) {
    $("notice").textContent = "";
    $("picked").textContent = what === "move" ? "playing " + body.move + "…" : "undoing…";
    const response = await fetch(api + what, { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body) });
    const answer = await response.json();
    if (!response.ok) { $("notice").textContent = answer.error; picks = []; if (shown) drawChoices(); return; }
    draw(answer);
  }

  async function follow() {
    for (;;) {
      try {
        const response = await fetch(api + "view" + (shown ? "?after=" + shown.version : ""));
        const answer = await response.json();
        if (!response.ok) { $("status").textContent = answer.error; return; }
        if (!shown || answer.version > shown.version) draw(answer);
      } catch (err) {
        $("status").textContent = "the table does not answer (is `ruleplay serve` still running?)";
        await new Promise((done) => setTimeout(done, 2000));
      }
    }
  }

  $("title").textContent = JSON.parse($("game-data").textContent).title;
  $("undo").addEventListener("click", () => send("undo", {}));
  follow();
})();
