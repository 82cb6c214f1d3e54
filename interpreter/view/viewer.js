// The replay viewer: steps through the frames stored in #game-data. Text goes in through textContent only;
// the pictures are SVG written (and escaped) by ruleplay.
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("game-data").textContent);
  const $ = (id) => document.getElementById(id);
  let step = 0;
  let view = data.views[0].key;

  function seatName(player) {
    return player === null ? "" : player < 0 ? "chance" : "player " + player;
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
    data.moves[view].forEach((m, i) => {
      const item = document.createElement("li");
      item.dataset.step = String(i + 1);
      item.textContent = seatName(m.player) + ": " + m.move;
      if (m.rules.length) {
        const rules = document.createElement("span");
        rules.className = "rules";
        rules.textContent = "[" + m.rules.join(", ") + "]";
        item.appendChild(rules);
      }
      item.addEventListener("click", () => show(i + 1));
      list.appendChild(item);
    });
  }

  function show(n) {
    step = Math.max(0, Math.min(data.length, n));
    $("picture").innerHTML = data.frames[view][step].map((k) => data.pieces[k]).join("");
    $("counter").textContent = "move " + step + " / " + data.length;
    $("jump").value = String(step);
    const s = data.scores[step];
    $("scores").textContent = s.scores === null || (view !== "all" && !s.over)
      ? (s.over ? "game over" : "scores are shown at the end in a seat's view")
      : (s.over ? "final scores: " : "scores: ") + s.scores.map((x, p) => "seat " + p + " " + x).join(", ");
    const items = $("moves").children;
    for (let i = 0; i < items.length; i++) {
      items[i].classList.toggle("current", i + 1 === step);
      items[i].classList.toggle("future", i + 1 > step);
    }
    if (step > 0) items[step - 1].scrollIntoView({ block: "nearest", inline: "nearest" });
    $("first").disabled = $("back").disabled = step === 0;
    $("last").disabled = $("forward").disabled = step === data.length;
  }

  $("title").textContent = data.title;
  buildViews();
  buildMoves();
  $("first").addEventListener("click", () => show(0));
  $("back").addEventListener("click", () => show(step - 1));
  $("forward").addEventListener("click", () => show(step + 1));
  $("last").addEventListener("click", () => show(data.length));
  $("go").addEventListener("click", () => show(parseInt($("jump").value, 10) || 0));
  $("jump").addEventListener("keydown", (e) => { if (e.key === "Enter") show(parseInt($("jump").value, 10) || 0); });
  $("view").addEventListener("change", () => { view = $("view").value; buildMoves(); show(step); });
  document.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
    if (e.key === "ArrowRight") show(step + 1);
    else if (e.key === "ArrowLeft") show(step - 1);
    else if (e.key === "Home") show(0);
    else if (e.key === "End") show(data.length);
    else return;
    e.preventDefault();
  });
  show(0);
})();
