// subword lab: the page's script. Hand-written, no build step, no network but the lab's own
// JSON API (documented in docs/lab.md). Text from the user and from models is only ever put
// in the page with textContent, never as HTML.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { models: [], replay: null, replayStep: 0, encoded: null };

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "class") node.className = value;
    else if (key.startsWith("data-")) node.setAttribute(key, value);
    else node[key] = value;
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

function showError(message) {
  const box = $("error");
  box.textContent = message || "";
  box.hidden = !message;
}

async function call(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  const answer = await response.json();
  if (!response.ok) throw new Error(answer.error || response.statusText);
  showError("");
  return answer;
}

function model() {
  return $("model").value;
}

function modelInfo(name) {
  return state.models.find((m) => m.name === name) || {};
}

// --- tabs ------------------------------------------------------------------------------

function showTab(name) {
  for (const button of document.querySelectorAll("#tabs button")) {
    button.classList.toggle("active", button.dataset.tab === name);
  }
  for (const section of document.querySelectorAll("section.tab")) {
    section.hidden = section.id !== "tab-" + name;
  }
  const load = { compare: runCompare, corpus: loadCorpus, health: loadHealth, replay: ensureReplay };
  if (load[name]) load[name]().catch((e) => showError(e.message));
}

// --- tokens ----------------------------------------------------------------------------

function visible(text) {
  if (!$("show-ws").checked) return text;
  return text.replace(/ /g, "\u00b7").replace(/\n/g, "\u21b5\n").replace(/\t/g, "\u2192");
}

// What a token shows: for byte-level models the text it covers (tokens that share a
// character show it once, on the first; the others are thin marks), for classic ones the
// token itself, end-of-word mark and all.
function shown(result, text, i) {
  if (!result.offsets || result.kind !== "byte") return result.texts[i];
  const [start, end] = result.offsets[i];
  const previousEnd = i ? result.offsets[i - 1][1] : 0;
  return start >= previousEnd ? text.slice(start, end) : "";
}

function tokenSpan(result, i, classes, text) {
  const [start, end] = result.offsets ? result.offsets[i] : [null, null];
  const where = start === null ? "" : ` \u00b7 characters ${start}\u2013${end}`;
  const span = el("span", {
    class: `tok c${i % 6}${classes || ""}`,
    title: `id ${result.ids[i]} \u00b7 ${JSON.stringify(result.tokens[i])}${where}`,
    "data-id": result.ids[i],
    "data-token": result.tokens[i],
    "data-index": i,
  });
  const content = shown(result, text, i);
  span.textContent = visible(content);
  if (!content) span.classList.add("part");
  return span;
}

function stats(result) {
  const n = result.ids.length;
  const per = (x) => (n ? (x / n).toFixed(2) : "\u2013");
  return `${n} tokens \u00b7 ${result.characters} characters (${per(result.characters)} per token) \u00b7 ${result.bytes} bytes (${per(result.bytes)} per token)`;
}

async function runEncode() {
  const text = $("text").value;
  const result = await call("POST", "/api/encode", { text, model: model() });
  state.encoded = { text, result };
  const box = $("tokens");
  box.replaceChildren();
  result.kind = modelInfo(model()).kind;
  result.ids.forEach((_, i) => box.append(tokenSpan(result, i, "", text)));
  $("stats").textContent = stats(result);
}

// The word a token belongs to: the run of non-space characters around it (with the space
// before it for GPT-2-style byte-level models, whose words carry their leading space).
function wordAt(text, start) {
  let a = start;
  while (a < text.length && /\s/.test(text[a])) a++; // a token that starts with its space
  let b = a;
  while (a > 0 && !/\s/.test(text[a - 1])) a--;
  while (b < text.length && !/\s/.test(text[b])) b++;
  const info = modelInfo(model());
  if (info.kind === "byte" && info.end_of_word === "none" && a > 0 && text[a - 1] === " ") a--;
  return text.slice(a, b);
}

function onTokenClick(event) {
  const span = event.target.closest(".tok");
  if (!span || !state.encoded || !state.encoded.result.offsets) return;
  const [start] = state.encoded.result.offsets[Number(span.dataset.index)];
  const word = wordAt(state.encoded.text, start);
  if (!word.trim()) return;
  $("word").value = word;
  showTab("merges");
  runExplain().catch((e) => showError(e.message));
}

// --- side by side ----------------------------------------------------------------------

function compareChoices() {
  const box = $("compare-models");
  if (box.childElementCount) return;
  for (const m of state.models) {
    const input = el("input", { type: "checkbox", checked: true, value: m.name });
    input.addEventListener("change", () => runCompare().catch((e) => showError(e.message)));
    box.append(el("label", {}, input, " " + m.name));
  }
}

async function runCompare() {
  compareChoices();
  const names = [...document.querySelectorAll("#compare-models input:checked")].map((i) => i.value);
  const box = $("compare");
  box.replaceChildren();
  if (!names.length) return;
  const text = $("text").value;
  const { results } = await call("POST", "/api/compare", { text, models: names });
  // A cut every model makes is shared; a token ending elsewhere is where splits differ.
  const spanned = names.filter((n) => results[n].offsets);
  const ends = spanned.map((n) => new Set(results[n].offsets.map((o) => o[1])));
  const shared = (end) => ends.every((set) => set.has(end));
  for (const name of names) {
    const result = results[name];
    result.kind = modelInfo(name).kind;
    const tokens = el("div", { class: "tokens" });
    result.ids.forEach((_, i) => {
      const differs = result.offsets && !shared(result.offsets[i][1]);
      tokens.append(tokenSpan(result, i, differs ? " diff" : "", text));
    });
    box.append(
      el("div", { class: "row", "data-model": name },
        el("div", {}, el("span", { class: "name" }, name), " \u00b7 " + stats(result)), tokens)
    );
  }
}

// --- merge steps -----------------------------------------------------------------------

function symbols(list, fresh) {
  const row = el("div");
  for (const s of list) row.append(el("span", { class: "sym" + (s === fresh ? " new" : "") }, s));
  return row;
}

async function runExplain() {
  const word = $("word").value;
  const result = await call("POST", "/api/explain", { word, model: model() });
  const same = JSON.stringify(result.result) === JSON.stringify(result.tokens);
  $("merges").replaceChildren(
    el("p", {}, `${JSON.stringify(result.word)} with ${model()}: ${result.steps.length} merge steps`),
    stepTable("merge-table", result.symbols, result.steps),
    el("p", { id: "merge-result" }, "result: ", symbols(result.result)),
    el("p", { class: same ? "ok" : "bad" },
      same ? "the encoder gives the same tokens" : `the encoder gives ${JSON.stringify(result.tokens)} (its pre-tokenizer cuts this text into several words)`),
    el("pre", { class: "mono" }, result.lines.join("\n")),
    result.merges_alone ? el("p", {}, "The model takes this word whole, as it is a token; its merges alone would build it like this:") : null,
    result.merges_alone ? stepTable("merges-alone", result.symbols, result.merges_alone) : null
  );
}

function stepTable(id, start, steps) {
  const rows = [el("tr", {}, el("th", {}, "step"), el("th", {}, "rank"), el("th", {}, "pair"), el("th", {}, "symbols after"))];
  rows.push(el("tr", { class: "initial" }, el("td", {}, "0"), el("td", {}, ""), el("td", {}, "split into symbols"), el("td", {}, symbols(start))));
  steps.forEach((step, i) => {
    const pair = step.pair ? `${step.pair[0]} + ${step.pair[1]}` : "whole piece is a token";
    const fresh = step.pair ? step.pair[0] + step.pair[1] : step.symbols[0];
    rows.push(
      el("tr", { class: "step" }, el("td", {}, i + 1), el("td", { class: "rank" }, step.rank),
        el("td", { class: "mono pair" }, pair), el("td", {}, symbols(step.symbols, fresh)))
    );
  });
  return el("table", { id }, ...rows);
}

// --- training replay -------------------------------------------------------------------

function parseWords(spec) {
  const words = {};
  for (const item of spec.trim().split(/\s+/)) {
    const cut = item.lastIndexOf(":");
    if (cut < 1) throw new Error(`"${item}" is not WORD:COUNT`);
    words[item.slice(0, cut)] = Number(item.slice(cut + 1));
  }
  return words;
}

async function ensureReplay() {
  if (!state.replay) await runReplay();
}

async function runReplay() {
  const body = {
    words: parseWords($("words").value),
    num_merges: Number($("num-merges").value),
    tie_break: $("tie-break").value,
  };
  state.replay = await call("POST", "/api/train-replay", body);
  state.replayStep = 0;
  drawReplay();
}

function tableView(table, merged) {
  const rows = [el("tr", {}, el("th", {}, "word (symbols)"), el("th", {}, "count"))];
  for (const [syms, count] of table) rows.push(el("tr", {}, el("td", {}, symbols(syms, merged)), el("td", {}, count)));
  return el("table", { class: "word-table" }, ...rows);
}

function drawReplay() {
  const replay = state.replay;
  const k = state.replayStep;
  const n = replay.steps.length;
  $("replay-step").textContent = `step ${k} of ${n}`;
  $("replay-prev").disabled = k === 0;
  $("replay-next").disabled = k === n;
  const box = $("replay");
  if (k === 0) {
    box.replaceChildren(el("h3", {}, "the word table"), tableView(replay.table));
    return;
  }
  const step = replay.steps[k - 1];
  const tied = new Set(step.tied.map((p) => JSON.stringify(p)));
  const rows = [el("tr", {}, el("th", {}, "pair"), el("th", {}, "count"))];
  for (const [a, b, count] of step.pair_counts) {
    const key = JSON.stringify([a, b]);
    const winner = key === JSON.stringify(step.pair);
    rows.push(el("tr", { class: winner ? "winner" : tied.has(key) ? "tied" : "" }, el("td", { class: "mono" }, `${a} ${b}`), el("td", {}, count)));
  }
  const note = step.tied.length > 1
    ? `${step.tied.length} pairs occur ${step.count} times; the ${replay.tie_break} rule picks ${step.pair.join(" ")}`
    : `the most frequent pair, ${step.count} times`;
  box.replaceChildren(
    el("h3", { id: "replay-merge" }, `merge ${k}: ${step.pair[0]} + ${step.pair[1]} \u2192 ${step.pair.join("")}`),
    el("p", {}, note),
    el("div", { class: "controls" }, el("div", {}, el("h4", {}, "pair counts"), el("table", { class: "pair-counts" }, ...rows)),
      el("div", {}, el("h4", {}, "the table after the merge"), tableView(step.table, step.pair.join(""))))
  );
}

function stepReplay(delta) {
  if (!state.replay) return;
  state.replayStep = Math.max(0, Math.min(state.replay.steps.length, state.replayStep + delta));
  drawReplay();
}

// --- corpus view -----------------------------------------------------------------------

function barChart(pairs, width, label) {
  const ns = "http://www.w3.org/2000/svg";
  const height = 160;
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("width", width);
  svg.setAttribute("height", height + 30);
  const max = Math.max(1, ...pairs.map((p) => p[1]));
  const w = width / Math.max(1, pairs.length);
  pairs.forEach(([key, value], i) => {
    const h = (value / max) * height;
    const rect = document.createElementNS(ns, "rect");
    Object.entries({ x: i * w + 1, y: height - h, width: Math.max(1, w - 2), height: h, fill: "#4a7bd0" })
      .forEach(([a, v]) => rect.setAttribute(a, v));
    const title = document.createElementNS(ns, "title");
    title.textContent = `${key}: ${value}`;
    rect.append(title);
    svg.append(rect);
    if (pairs.length <= 24 || i % Math.ceil(pairs.length / 24) === 0) {
      const text = document.createElementNS(ns, "text");
      text.setAttribute("x", i * w + w / 2);
      text.setAttribute("y", height + 14);
      text.setAttribute("text-anchor", "middle");
      text.textContent = key;
      svg.append(text);
    }
  });
  const caption = document.createElementNS(ns, "text");
  caption.setAttribute("x", 0);
  caption.setAttribute("y", height + 28);
  caption.textContent = label;
  svg.append(caption);
  return svg;
}

async function loadCorpus() {
  const box = $("corpus");
  const info = await call("GET", "/api/models");
  if (!info.corpus) {
    box.replaceChildren(el("p", {}, "Start the lab with --corpus FILE to measure the models on a text."));
    return;
  }
  box.replaceChildren(el("p", {}, `measuring ${model()} on ${info.corpus}\u2026`));
  const c = await call("GET", "/api/corpus?model=" + encodeURIComponent(model()));
  const scripts = [el("tr", {}, el("th", {}, "script"), el("th", {}, "tokens"), el("th", {}, "bytes"), el("th", {}, "tokens per byte"))];
  for (const [script, s] of Object.entries(c.by_script)) {
    scripts.push(el("tr", {}, el("td", {}, script), el("td", {}, s.tokens), el("td", {}, s.bytes), el("td", {}, s.tokens_per_byte.toFixed(3))));
  }
  const top = [el("tr", {}, el("th", {}, "token"), el("th", {}, "id"), el("th", {}, "count"))];
  for (const t of c.top_tokens) top.push(el("tr", {}, el("td", { class: "mono" }, JSON.stringify(t.text)), el("td", {}, t.id), el("td", {}, t.count)));
  const perLine = c.by_line.map(([t, b], i) => [String(i + 1), b ? t / b : 0]);
  box.replaceChildren(
    el("p", { id: "corpus-summary" }, `${info.corpus}: ${c.lines} lines, ${c.bytes} bytes, ${c.tokens} tokens with ${model()} \u2014 ${c.tokens_per_byte.toFixed(3)} tokens per byte; ${c.distinct_tokens} distinct tokens; ${c.never_used_count} vocabulary entries never used (${(100 * c.never_used_share).toFixed(1)}%)`),
    el("h3", {}, "tokens per byte, by script"), el("table", {}, ...scripts),
    el("h3", {}, "tokens per byte, line by line"), barChart(perLine, 900, "line"),
    el("h3", {}, "token lengths (bytes), over all tokens used"),
    barChart(Object.entries(c.token_lengths).map(([k, v]) => [k, v]), 600, "bytes per token"),
    el("h3", {}, "most frequent tokens"), el("table", {}, ...top)
  );
}

// --- vocabulary health -----------------------------------------------------------------

function tokenList(items) {
  const list = el("div", { class: "tokens" });
  items.forEach((t, i) => list.append(el("span", { class: `tok c${i % 6}`, title: `id ${t.id} \u00b7 ${JSON.stringify(t.token)}` }, JSON.stringify(t.text)), " "));
  return list;
}

async function loadHealth() {
  const box = $("health");
  box.replaceChildren(el("p", {}, `checking every token of ${model()}\u2026`));
  const h = await call("GET", "/api/health?model=" + encodeURIComponent(model()));
  box.replaceChildren(
    el("p", { id: "health-summary" }, `${model()}: ${h.checked} tokens checked; ${h.unreachable_count} unreachable (${(100 * h.unreachable_share).toFixed(2)}%); ${h.split_alone_count} whose own text encodes otherwise.`),
    el("p", { class: "hint" }, h.rule),
    el("h3", {}, "unreachable: the merges never build them"), tokenList(h.unreachable),
    el("h3", {}, "their own text, encoded alone, gives other tokens"), tokenList(h.split_alone)
  );
}

// --- start -----------------------------------------------------------------------------

let encodeTimer = null;
function scheduleEncode() {
  clearTimeout(encodeTimer);
  encodeTimer = setTimeout(() => runEncode().catch((e) => showError(e.message)), 120);
}

async function start() {
  const info = await call("GET", "/api/models");
  state.models = info.models;
  for (const m of info.models) {
    $("model").append(el("option", { value: m.name }, `${m.name} (${m.kind}, ${m.vocab_size} tokens)`));
  }
  for (const rule of info.tie_breaks) $("tie-break").append(el("option", { value: rule, selected: rule === "first" }, rule));
  $("text").addEventListener("input", scheduleEncode);
  $("show-ws").addEventListener("change", scheduleEncode);
  $("tokens").addEventListener("click", onTokenClick);
  $("model").addEventListener("change", () => {
    scheduleEncode();
    const active = document.querySelector("#tabs button.active").dataset.tab;
    if (active === "health" || active === "corpus") showTab(active);
  });
  for (const button of document.querySelectorAll("#tabs button")) {
    button.addEventListener("click", () => showTab(button.dataset.tab));
  }
  $("explain").addEventListener("click", () => runExplain().catch((e) => showError(e.message)));
  $("replay-run").addEventListener("click", () => runReplay().catch((e) => showError(e.message)));
  $("replay-prev").addEventListener("click", () => stepReplay(-1));
  $("replay-next").addEventListener("click", () => stepReplay(1));
  await runEncode();
  document.body.dataset.ready = "1";
}

start().catch((e) => showError(e.message));
