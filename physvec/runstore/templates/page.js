// Search and sorting for report.html (inlined) and physvec view (/static/page.js): no framework, no network.
(function () {
  function filter(input) {
    var query = input.value.toLowerCase();
    document.querySelectorAll(input.dataset.filter).forEach(function (item) {
      item.classList.toggle("hidden", query !== "" && item.textContent.toLowerCase().indexOf(query) < 0);
    });
    var count = document.querySelectorAll(input.dataset.filter + ":not(.hidden)").length;
    var label = document.getElementById(input.id + "-count");
    if (label) { label.textContent = count + " shown"; }
  }
  function cellValue(row, index) {
    var cell = row.children[index];
    var value = cell.dataset.sort !== undefined ? cell.dataset.sort : cell.textContent.trim();
    return value !== "" && !isNaN(Number(value)) ? Number(value) : value.toLowerCase();
  }
  function sort(header) {
    var table = header.closest("table"), body = table.tBodies[0];
    var index = Array.prototype.indexOf.call(header.parentNode.children, header);
    var ascending = header.dataset.order !== "ascending";
    header.dataset.order = ascending ? "ascending" : "descending";
    Array.prototype.slice.call(body.rows).sort(function (a, b) {
      var x = cellValue(a, index), y = cellValue(b, index);
      var order = typeof x === typeof y ? (x < y ? -1 : x > y ? 1 : 0) : (typeof x === "number" ? -1 : 1);
      return ascending ? order : -order;
    }).forEach(function (row) { body.appendChild(row); });
  }
  document.querySelectorAll("input[data-filter]").forEach(function (input) {
    input.addEventListener("input", function () { filter(input); });
  });
  document.querySelectorAll("th.sortable").forEach(function (header) {
    header.addEventListener("click", function () { sort(header); });
  });
})();
