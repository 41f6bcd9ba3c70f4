// Sorts a table.sortable by a column when its header is clicked (or
// given Enter or Space), ascending first, then descending: numeric
// columns (th.num) by the number each cell begins with, cells without
// one last whatever the direction; other columns as text, numbers in
// it by value. The rows of tfoot stay in place.
(function () {
  "use strict";
  var leading = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?/i;
  function key(cell, numeric) {
    var s = cell ? cell.textContent.trim() : "";
    if (!numeric) {
      return s;
    }
    var m = leading.exec(s);
    return m ? parseFloat(m[0]) : null;
  }
  function sortBy(table, col, th) {
    var numeric = th.classList.contains("num");
    var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
    table.querySelectorAll("thead th").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", dir > 0 ? "ascending" : "descending");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a.cells[col], numeric), y = key(b.cells[col], numeric);
      if (x === null || y === null) {
        return (x === null) - (y === null);
      }
      if (numeric) {
        return dir * (x - y);
      }
      return dir * x.localeCompare(y, undefined, { numeric: true });
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    table.querySelectorAll("thead th").forEach(function (th, col) {
      th.tabIndex = 0;
      th.addEventListener("click", function () { sortBy(table, col, th); });
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") {
          e.preventDefault();
          sortBy(table, col, th);
        }
      });
    });
  });
})();
