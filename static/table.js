// nccl-report: optional sorting and filtering of tables. It only enhances: every page is
// complete without it (tables come sorted: worst verdict first, newest run first). Works from
// file:// (a classic script, no modules, no requests). Each header becomes a button that
// sorts its column (numbers by value, text in natural order: tokens=1 before tokens=128);
// a table of more than 8 rows gets a filter box that hides rows not containing its text; a
// folded table is unfolded for printing.
(function () {
  "use strict";
  var collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });
  function key(cell) {
    var text = cell ? cell.textContent.trim() : "";
    var number = parseFloat(text.replace(/[▲▼=≠…✖⚠,\s]/g, ""));
    return { text: text, number: /^[▲▼=≠…✖⚠\s]*[-+]?[0-9.]/.test(text) && isFinite(number) ? number : null };
  }
  function compare(a, b) {
    if (a.number !== null && b.number !== null) return a.number - b.number;
    return collator.compare(a.text, b.text);
  }
  function enhance(table) {
    var body = table.tBodies[0];
    var head = table.tHead;
    if (!body || !head || body.rows.length < 2) return;
    Array.prototype.forEach.call(head.rows[0].cells, function (th, column) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      button.textContent = th.textContent;
      button.title = "Sort by " + th.textContent;
      th.textContent = "";
      th.appendChild(button);
      button.addEventListener("click", function () {
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(head.rows[0].cells, function (other) { other.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (x, y) {
          var order = compare(key(x.cells[column]), key(y.cells[column]));
          return ascending ? order : -order;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
    if (body.rows.length > 8) {
      var label = document.createElement("label");
      label.className = "filter";
      label.textContent = "Filter rows: ";
      var input = document.createElement("input");
      input.type = "search";
      input.addEventListener("input", function () {
        var needle = input.value.toLowerCase();
        Array.prototype.forEach.call(body.rows, function (row) {
          row.hidden = needle !== "" && row.textContent.toLowerCase().indexOf(needle) < 0;
        });
      });
      label.appendChild(input);
      var wrap = table.parentNode;
      wrap.parentNode.insertBefore(label, wrap);
    }
  }
  Array.prototype.forEach.call(document.querySelectorAll("main table"), enhance);
  // A folded table (every case of a comparison) prints unfolded.
  window.addEventListener("beforeprint", function () {
    Array.prototype.forEach.call(document.querySelectorAll("details.folded"), function (d) { d.open = true; });
  });
})();
