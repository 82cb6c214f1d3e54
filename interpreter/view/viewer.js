// The replay viewer: steps through the frames stored in #game-data. Text goes in through textContent only;
// the pictures are SVG written (and escaped) by ruleplay. A step is the start, a move, or what the flow did
// after a move (a round's end, with the events it told); #move=N in the address opens move N.
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("game-data").textContent);
  const $ = (id) => document.getElementById(id);
  let step = 0;
  let view = data.views[0].key;
  const steps = () => data.frames[view].length - 1; // the last step's index

  function seatName(player) {
    return player === null ? "" : player < 0 ? "chance" : "player " + player;
  }

  function ruleSpan(rule) {
    const span = document.createElement("span");
    span.className = "rule";
    span.textContent = rule;
    if (data.rules[rule] !== undefined) span.title = rule + ": " + data.rules[rule];
    return span;
  }

  function buildViews() {
    for (const v of data.views) {
      const option = document.createElement("option");
      option.value = v.key;
      option.textContent = v.name;
      $("view").appendChild(option);
    }
    $("view").value = view;
  }

  function buildMoves() {
    const list = $("moves");
    list.replaceChildren();
    let round = null;
    data.moves[view].forEach((m, i) => {
      if (data.rounds && m.round !== round) {
        round = m.round;
        const head = document.createElement("li");
        head.className = "round-head";
        head.textContent = "round " + round;
        list.appendChild(head);
      }
      const item = document.createElement("li");
      item.dataset.step = String(i + 1);
      item.className = m.kind === "flow" ? "flow" : "move";
      if (m.kind === "move") item.value = m.n; // the list's number is the move's
      item.appendChild(document.createTextNode(m.kind === "move" ? seatName(m.player) + ": " + m.move : m.move));
      if (m.rules.length) {
        const rules = document.createElement("span");
        rules.className = "rules";
        rules.append("[");
        m.rules.forEach((r, k) => { if (k) rules.append(", "); rules.appendChild(ruleSpan(r)); });
        rules.append("]");
        item.appendChild(rules);
      }
      if (m.kind === "move") {
        const link = document.createElement("a");
        link.href = "#move=" + m.n;
        link.className = "link";
        link.textContent = "#";
        link.title = "a link to move " + m.n;
        item.appendChild(link);
      }
      for (const e of m.events) {
        const line = document.createElement("div");
        line.className = "event";
        line.textContent = e.text;
        if (e.rule !== null) { line.append(" "); line.appendChild(ruleSpan(e.rule)); }
        item.appendChild(line);
      }
      item.addEventListener("click", (ev) => { if (!(ev.target instanceof HTMLAnchorElement)) show(i + 1); });
      list.appendChild(item);
    });
  }

  function stepOfMove(n) {
    if (n <= 0) return 0;
    const k = data.moves[view].findIndex((m) => m.kind === "move" && m.n >= n);
    return k < 0 ? steps() : k + 1;
  }

  function scorePanel(s) {
    const panel = $("score-panel");
    panel.replaceChildren();
    const hidden = s.scores === null || (view !== "all" && !s.over);
    data.seats.forEach((seat, p) => {
      const row = document.createElement("tr");
      const swatch = document.createElement("td");
      const dot = document.createElement("span");
      dot.className = "swatch";
      dot.style.background = seat.colour; // a colour ruleplay chose (#rrggbb), never text from a ruleset
      swatch.appendChild(dot);
      const name = document.createElement("td");
      name.textContent = seat.name + (String(p) === view ? " (this view)" : "");
      const score = document.createElement("td");
      score.className = "score";
      score.textContent = hidden ? "?" : s.scores[p];
      row.append(swatch, name, score);
      panel.appendChild(row);
    });
  }

  function show(n) {
    step = Math.max(0, Math.min(steps(), n));
    $("picture").innerHTML = data.frames[view][step].map((k) => data.pieces[k]).join("");
    const m = step > 0 ? data.moves[view][step - 1] : null;
    $("counter").textContent = "move " + (m ? m.n : 0) + " / " + data.length + (m && m.kind === "flow" ? ", " + m.move : "")
      + (data.finished || step < steps() ? "" : " (unfinished: the log stops here)");
    $("jump").value = String(m ? m.n : 0);
    const s = data.scores[step];
    $("scores").textContent = s.scores === null || (view !== "all" && !s.over)
      ? (s.over ? "game over" : "scores are shown at the end in a seat's view")
      : (s.over ? "final scores: " : "scores: ") + s.scores.map((x, p) => "seat " + p + " " + x).join(", ");
    scorePanel(s);
    const items = $("moves").querySelectorAll("li[data-step]");
    let current = null;
    items.forEach((item) => {
      const k = Number(item.dataset.step);
      item.classList.toggle("current", k === step);
      item.classList.toggle("future", k > step);
      if (k === step) current = item;
    });
    if (current) current.scrollIntoView({ block: "nearest", inline: "nearest" });
    $("first").disabled = $("back").disabled = step === 0;
    $("last").disabled = $("forward").disabled = step === steps();
    const hash = "#move=" + (m ? m.n : 0);
    if (location.hash !== hash && !(m && m.kind === "flow")) history.replaceState(null, "", hash);
  }

  function fromHash() {
    const found = /^#move=(\d+)$/.exec(location.hash);
    return found ? stepOfMove(parseInt(found[1], 10)) : 0;
  }

  $("title").textContent = data.title + (data.finished ? "" : " (unfinished game)");
  buildViews();
  buildMoves();
  $("first").addEventListener("click", () => show(0));
  $("back").addEventListener("click", () => show(step - 1));
  $("forward").addEventListener("click", () => show(step + 1));
  $("last").addEventListener("click", () => show(steps()));
  $("go").addEventListener("click", () => show(stepOfMove(parseInt($("jump").value, 10) || 0)));
  $("jump").addEventListener("keydown", (e) => {
    if (e.key === "Enter") show(stepOfMove(parseInt($("jump").value, 10) || 0));
  });
  $("view").addEventListener("change", () => { view = $("view").value; buildMoves(); show(step); });
  window.addEventListener("hashchange", () => show(fromHash()));
  document.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
    if (e.key === "ArrowRight") show(step + 1);
    else if (e.key === "ArrowLeft") show(step - 1);
    else if (e.key === "Home") show(0);
    else if (e.key === "End") show(steps());
    else return;
    e.preventDefault();
  });
  show(fromHash());
})();
