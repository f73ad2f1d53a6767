"""The page's inline style and script (no network: nothing is fetched when the page opens)."""

CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;background:#fff}
h1{font-size:1.5em}h2{font-size:1.25em;margin-top:1.6em;border-bottom:1px solid #ccc}h3{font-size:1.05em}
table{border-collapse:collapse;margin:.5em 0}th,td{border:1px solid #ddd;padding:2px 6px;vertical-align:top}
th{background:#f3f3f3;position:sticky;top:0}td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.total td{font-weight:bold;background:#fafafa}.bad{color:#b00}.good{color:#070}.unk{color:#a60}
.small{font-size:.85em;color:#555}.charts{display:flex;flex-wrap:wrap;gap:12px}
.chart .ct{font-size:12px;font-weight:bold}
.chart .cv{font-size:10px}.chart .cl{font-size:10px;fill:#444}.chart .axis{stroke:#888}
.filters{margin:.5em 0;display:flex;gap:8px;flex-wrap:wrap;align-items:center}
.filters input{width:22em}td.reason{min-width:22em;max-width:34em}.plan{font-size:.85em;margin-top:3px}
td.model{max-width:10em;overflow-wrap:anywhere}td.asked{min-width:18em;max-width:26em}
td.reply{min-width:22em;max-width:34em}td.usage{min-width:7em}
pre.response{max-height:16em;overflow:auto;background:#f7f7f7;padding:3px 5px;border-left:3px solid #4a78b5}
details{margin:2px 0}summary{cursor:pointer}pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:0;font-size:.85em}
"""

# One generic filter: a .filters box names its rows' container in data-filter; the text box matches
# anywhere in a row, each select matches the row's data-<name> attribute exactly.
JS = """
document.querySelectorAll('.filters[data-filter]').forEach(function (box) {
  var root = document.getElementById(box.dataset.filter);
  var rows = root.querySelectorAll('[data-row]');
  var text = box.querySelector('input[type=search]');
  var selects = box.querySelectorAll('select');
  var count = box.querySelector('.count');
  function apply() {
    var needle = text.value.trim().toLowerCase(), shown = 0;
    rows.forEach(function (row) {
      var ok = !needle || row.textContent.toLowerCase().indexOf(needle) >= 0;
      selects.forEach(function (s) { if (s.value && row.dataset[s.name] !== s.value) ok = false; });
      row.hidden = !ok;
      if (ok) shown += 1;
    });
    count.textContent = shown + ' of ' + rows.length + ' shown';
  }
  text.addEventListener('input', apply);
  selects.forEach(function (s) { s.addEventListener('change', apply); });
  apply();
});
"""
