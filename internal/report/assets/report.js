// The trace viewer. The tables and the register selector work without
// this script; it only adds the click-through from a heatmap cell to its
// trials and from a trial to its event timeline. It reads the data
// embedded in the page and makes no request of any kind.
(function () {
  "use strict";
  var el = document.getElementById("trial-data");
  if (!el) return;
  var D = JSON.parse(el.textContent);
  var colIx = {};
  D.cols.forEach(function (c, i) { colIx[c] = i; });
  var traceByRow = {};
  D.traces.forEach(function (t) { traceByRow[t.row] = t; });

  function field(row, name) {
    var r = D.rows[row];
    var b = D.bools.indexOf(name);
    if (b >= 0) return Math.floor(r[0] / Math.pow(2, b)) % 2 === 1;
    var c = colIx[name];
    if (c === undefined) return undefined;
    var v = r[c + 1];
    if (v === -1) return undefined;
    if (v === -2) return "traces/" + field(row, "trial_id") + ".jsonl";
    if (v === -3) return "traces/" + field(row, "trial_id") + ".jsonl.gz";
    return D.vals[c][v];
  }
  function record(row) {
    var t = traceByRow[row];
    if (t) return t.rec;
    var out = {};
    D.cols.forEach(function (c) { var v = field(row, c); if (v !== undefined) out[c] = v; });
    D.bools.forEach(function (b) { out[b] = field(row, b); });
    return out;
  }

  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }
  // Hidden characters (zero-width, bidirectional controls, Unicode tags,
  // soft hyphens, other controls) are shown as visible code points:
  // poisoned metadata hides instructions in them.
  var hidden = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]|\udb40[\udc00-\udc7f]/g;
  function visible(s) {
    s = String(s);
    var out = "", last = 0, m;
    hidden.lastIndex = 0;
    while ((m = hidden.exec(s)) !== null) {
      out += esc(s.slice(last, m.index));
      var cp = m[0].codePointAt(0).toString(16).toUpperCase();
      while (cp.length < 4) cp = "0" + cp;
      out += '<span class="hidden-char" title="hidden character">U+' + cp + "</span>";
      last = m.index + m[0].length;
    }
    return out + esc(s.slice(last));
  }
  function pre(s, cls) { return '<pre' + (cls ? ' class="' + cls + '"' : "") + ">" + visible(s) + "</pre>"; }
  function json(v) { return JSON.stringify(v, null, 1); }

  // toolList accepts a tools/list result ({"tools": [...]}) or a list.
  function toolList(x) {
    if (Array.isArray(x)) return x;
    if (x && Array.isArray(x.tools)) return x.tools;
    return null;
  }
  function toolsText(x) {
    var tools = toolList(x);
    if (!tools) return json(x);
    tools = tools.slice().sort(function (a, b) { return String(a.name) < String(b.name) ? -1 : String(a.name) > String(b.name) ? 1 : 0; });
    return tools.map(function (t) {
      var s = (t.name || "?") + ": " + (t.description || "");
      var schema = t.inputSchema || t.input_schema;
      var props = schema && schema.properties;
      if (props) Object.keys(props).sort().forEach(function (p) {
        var d = props[p] && props[p].description;
        s += "\n  ." + p + (d ? ": " + d : "");
      });
      return s;
    }).join("\n\n");
  }

  var trialsBox = document.getElementById("trials");
  var traceBox = document.getElementById("trace");
  var current = null;

  function outcome(row) {
    var parts = [];
    if (field(row, "error") != null) parts.push('<span class="badge bad">errored</span>');
    else if (field(row, "objective_met")) parts.push('<span class="badge bad">objective met</span>');
    else parts.push('<span class="badge good">objective not met</span>');
    if (field(row, "blocked")) parts.push('<span class="badge">blocked</span>');
    return parts.join(" ");
  }

  function showCell(td) {
    if (current) current.classList.remove("selected");
    current = td;
    td.classList.add("selected");
    var m = td.dataset.model, a = td.dataset.arm, c = td.dataset.class, r = td.dataset.register;
    var rows = [];
    for (var i = 0; i < D.rows.length; i++) {
      if (field(i, "model") === m && field(i, "arm") === a && field(i, "attack_class") === c &&
          (r === "*" || field(i, "register") === r)) rows.push(i);
    }
    var total = (+td.dataset.n) + (+td.dataset.errors || 0);
    var h = '<h3>' + esc(m) + " · arm " + esc(a) + " · " + esc(c) + " · " + (r === "*" ? "all registers" : "register " + esc(r)) +
      "</h3><p>" + rows.length + " of " + total + " trials listed; " + esc(td.dataset.k) + "/" + esc(td.dataset.n) +
      " met the objective. Choose a trial to see its timeline.</p>";
    h += '<table class="trials"><thead><tr><th>trial</th><th>register</th><th>task</th><th>payload</th><th>objective</th><th>seed</th><th>outcome</th><th>timeline</th></tr></thead><tbody>';
    rows.forEach(function (i) {
      h += '<tr tabindex="0" data-row="' + i + '" data-trial="' + esc(field(i, "trial_id")) + '"><td><code>' + esc(field(i, "trial_id")) + "</code></td><td>" +
        esc(field(i, "register")) + "</td><td>" + esc(field(i, "task")) + "</td><td>" + esc(field(i, "payload_id")) + "</td><td>" +
        esc(field(i, "objective")) + "</td><td>" + esc(field(i, "seed")) + "</td><td>" + outcome(i) + "</td><td>" +
        (traceByRow[i] ? "embedded" : "score only") + "</td></tr>";
    });
    h += "</tbody></table>";
    trialsBox.innerHTML = h;
    trialsBox.hidden = false;
    traceBox.hidden = true;
    traceBox.innerHTML = "";
    document.getElementById("viewer").scrollIntoView({ block: "start" });
  }

  function showTrial(tr) {
    var prev = trialsBox.querySelector("tr.selected");
    if (prev) prev.classList.remove("selected");
    tr.classList.add("selected");
    var row = +tr.dataset.row;
    var rec = record(row);
    var h = "<h3>Trial <code>" + esc(rec.trial_id) + "</code></h3>";
    h += '<div class="trial-grid"><div><h4>Score record</h4><table class="score"><tbody>';
    Object.keys(rec).forEach(function (k) {
      h += "<tr><th>" + esc(k) + "</th><td><code>" + esc(JSON.stringify(rec[k])) + "</code></td></tr>";
    });
    h += "</tbody></table></div><div>";
    var t = traceByRow[row];
    if (!t) {
      h += '<p class="limit">This trial\'s timeline is not embedded (page size limit). Its full trace is in the run directory (<code>' + esc(rec.trace || "") + "</code>); print it with <code>mcpsec trace RUN_DIR " + esc(rec.trial_id) + "</code>.</p>";
    } else {
      h += '<h4>Event timeline</h4><ol class="timeline">' + timeline(t.ev) + "</ol>";
    }
    h += "</div></div>";
    traceBox.innerHTML = h;
    traceBox.hidden = false;
  }

  function timeline(evs) {
    var raw = {}; // server → tools of the latest listing
    var h = "";
    evs.forEach(function (e) {
      var seq = e[0], kind = D.kinds[e[1]], step = e[2], d = D.blobs[e[3]];
      var body = "", title = kind.replace(/_/g, " ");
      switch (kind) {
        case "run_config":
          body = pre(["model " + d.model, "task " + d.task, "class " + d.attack_class, "payload " + d.payload_id + " (" + d.register + ")",
            "objective " + d.objective, "arm " + d.arm, "seed " + d.seed].join("\n"));
          break;
        case "mcp_initialize":
          title += " " + d.server;
          body = pre((d.server_name || "") + " " + (d.server_version || "") + (d.instructions ? "\ninstructions: " + d.instructions : ""));
          break;
        case "mcp_list_tools":
          raw[d.server] = d.tools;
          title += " " + d.server + " (" + d.reason + ")";
          body = "<details><summary>" + (toolList(d.tools) || []).length + " tools as the server listed them</summary>" + pre(toolsText(d.tools)) + "</details>";
          break;
        case "tools_offered":
          var all = [];
          Object.keys(raw).sort().forEach(function (s) { all = all.concat(toolList(raw[s]) || []); });
          var rt = toolsText(all), ot = toolsText(d.tools), ch = rt !== ot;
          title += ch ? " (changed by the defense)" : " (unchanged)";
          body = '<div class="side"><div><h4>raw metadata (servers)</h4>' + pre(rt) + '</div><div><h4>transformed metadata (offered to the model)</h4>' + pre(ot, ch ? "changed" : "") + "</div></div>";
          break;
        case "user_prompt":
          body = "<details><summary>system context</summary>" + pre(d.system) + "</details>" + pre(d.prompt);
          break;
        case "assistant_message":
          body = pre(d.content || "(no text)") + (d.tool_calls ? pre("tool calls: " + json(d.tool_calls)) : "") +
            "<small>stop " + esc(d.stop_reason) + ", tokens in " + esc(d.input_tokens) + " / out " + esc(d.output_tokens) + "</small>";
          break;
        case "tool_call":
          title += " " + d.server + "." + d.tool;
          body = pre(json(d.arguments)) + (d.parse_error ? pre("parse error: " + d.parse_error) : "");
          break;
        case "blocked_tool_call":
          title = "BLOCKED call " + d.server + "." + d.tool;
          body = pre("reason: " + d.reason + "\nrule: " + d.rule);
          break;
        case "tool_result":
          var changed = d.raw !== d.transformed;
          title += " " + d.server + "." + d.tool + (d.is_error ? " (error)" : "") + (changed ? " (changed by the defense)" : "");
          body = '<div class="side"><div><h4>raw result</h4>' + pre(d.raw) + '</div><div><h4>transformed result (read by the model)</h4>' + pre(d.transformed, changed ? "changed" : "") + "</div></div>";
          break;
        case "metadata_drift":
          title += " " + d.server + "." + d.tool + ": " + d.change;
          body = pre((d.before_fingerprint || "") + " → " + (d.after_fingerprint || ""));
          break;
        case "summary":
          body = pre((d.final_text || "") + "\n\nsteps " + d.steps + (d.error ? "\nerror: " + d.error : ""));
          break;
        default:
          body = pre(json(d));
      }
      h += '<li class="ev ev-' + esc(kind) + '" data-kind="' + esc(kind) + '" data-seq="' + seq + '"><div class="hd">' + esc(title) +
        " <small>#" + seq + ", step " + step + "</small></div>" + body + "</li>";
    });
    return h;
  }

  function activate(target) {
    var td = target.closest("td.cell");
    if (td) { showCell(td); return true; }
    var tr = target.closest("#trials tr[data-row]");
    if (tr) { showTrial(tr); return true; }
    return false;
  }
  document.addEventListener("click", function (ev) { activate(ev.target); });
  document.addEventListener("keydown", function (ev) {
    if ((ev.key === "Enter" || ev.key === " ") && activate(ev.target)) ev.preventDefault();
  });
})();
