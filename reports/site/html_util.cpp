#include "reports/site/html_util.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "reports/html.h"
#include "reports/json_number.h"

namespace kc::reports::site {


std::string show(const json& v) {
  if (v.is_null()) return "n/a";
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_number_integer()) return fmt::format("{}", v.get<std::int64_t>());
  if (v.is_number_unsigned()) return fmt::format("{}", v.get<std::uint64_t>());
  if (v.is_number_float()) {
    const double d = v.get<double>();
    std::string s = fmt::format("{:.6g}", d);
    // 0.9999999999999989 must not read as 1 next to a bound of 1: a
    // non-integer gets the digits it needs not to look like an integer.
    for (int digits = 7; digits <= 17 && d != std::floor(d) && s.find_first_of(".e") == std::string::npos; ++digits)
      s = fmt::format("{:.{}g}", d, digits);
    return escape_html(s);
  }
  if (v.is_string()) {
    // A non-finite figure (reports/json_number.h) reads as such: inf, -inf, NaN.
    if (const auto d = as_double(v)) return std::isnan(*d) ? "NaN" : *d > 0 ? "inf" : "-inf";
    return escape_html(v.get_ref<const std::string&>());
  }
  return escape_html(v.dump());
}

std::string exact(const json& v) {
  if (v.is_null()) return "";
  if (v.is_number_float()) return escape_html(fmt::format("{}", v.get<double>()));
  if (v.is_string()) {
    // JavaScript's parseFloat reads "Infinity", not "inf": the sort must see numbers.
    const auto d = as_double(v);
    if (d && std::isinf(*d)) return *d > 0 ? "Infinity" : "-Infinity";
    if (d) return "NaN";
    return escape_html(v.get_ref<const std::string&>());
  }
  return escape_html(v.dump());
}

std::string num_td(const json& v, std::string_view cls) {
  const std::string e = exact(v);
  return fmt::format("<td class=\"num{}{}\" data-v=\"{}\"{}>{}</td>", cls.empty() ? "" : " ", cls, e,
                     e.empty() ? "" : " title=\"" + e + "\"", show(v));
}

std::string str(const json& obj, const char* key) {
  if (!obj.is_object() || !obj.contains(key) || obj[key].is_null()) return "";
  return show(obj[key]);
}

std::string fields_table(const json& obj) {
  std::string s = "<table class=\"fields\"><tbody>";
  for (const auto& [key, v] : obj.items()) {
    std::string cell;
    if (v.is_array())
      for (const auto& line : v) cell += (cell.empty() ? "" : "<br>") + show(line);
    else
      cell = show(v);
    s += fmt::format("<tr><th>{}</th><td>{}</td></tr>", escape_html(key), cell);
  }
  return s + "</tbody></table>";
}

std::string slug(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    out += ok ? std::string(1, static_cast<char>(c)) : fmt::format("_{:02x}", c);
  }
  return out.empty() ? "_" : out;
}

std::string verdict_badge(const std::string& v) {
  // Text and a glyph as well as colour: the verdict must survive black-and-white printing.
  const char* glyph = v == "pass" ? "&#10003; " : v == "fail" ? "&#10007; " : "&#8211; ";
  const std::string label = v == "not_graded" ? "not graded" : v;
  return fmt::format("<span class=\"badge v-{}\">{}{}</span>", slug(v), glyph, escape_html(label));
}

const char* const kTrustRule =
    "A grade is flagged <strong>untrustworthy</strong> when more than 90% of the outputs are zero or NaN "
    "(a kernel can pass such a case set by returning zeros), or when fewer than 3 input value classes were "
    "exercised.";

std::string untrustworthy_reason(const json& r) {
  if (!r.contains("coverage") || !r["coverage"].is_object()) return "no coverage data";
  const auto& c = r["coverage"];
  auto at = [&](const char* k) { return static_cast<double>(c.contains(k) ? integer_or(c[k], 0) : 0); };
  // In doubles: a document's counts can be anything, and 10 x INT64_MAX overflows.
  const double outputs = at("outputs"), trivial = at("outputs_zero") + at("outputs_nan");
  std::string why;
  if (outputs > 0 && trivial * 10 > outputs * 9) why = fmt::format("{:.1f}% of outputs are zero or NaN", 100.0 * trivial / outputs);
  int classes = 0;
  if (c.contains("value_classes") && c["value_classes"].is_object())
    for (const auto& [k, n] : c["value_classes"].items()) classes += n.is_number() && n.get<double>() > 0;
  if (classes < 3) why += fmt::format("{}only {} value class{} exercised", why.empty() ? "" : "; ", classes, classes == 1 ? "" : "es");
  return why;
}

namespace {

const char* kStyle = R"CSS(
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#111;background:#fff;line-height:1.4}
main{max-width:1500px;margin:0 auto;padding:1em 1.5em 3em}
#results{font-size:.84em}#results td{padding:.15em .35em}
h1{font-size:1.6em;margin:.4em 0}h2{font-size:1.3em;margin-top:1.6em;border-bottom:2px solid #333;padding-bottom:.1em}
h3{font-size:1.05em;margin:1.2em 0 .3em}
table{border-collapse:collapse;margin:.4em 0 .8em;font-size:.92em}
td,th{border:1px solid #aaa;padding:.2em .45em;text-align:left;vertical-align:top}
th{background:#eee}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
th.sort{cursor:pointer;user-select:none}th.sort::after{content:" \21C5";color:#777}
th.asc::after{content:" \25B2"}th.desc::after{content:" \25BC"}
tr.v-fail td{background:#fbe3e3}tr.v-not_graded td{background:#f0f0f0}
.badge{display:inline-block;padding:0 .4em;border:1px solid #333;border-radius:3px;font-weight:600;white-space:nowrap}
.v-pass{background:#d9f2d9}.v-fail{background:#f6c4c4;border-width:2px}.v-not_graded{background:#e4e4e4;border-style:dashed}
.warn{border:2px dashed #333;background:#fff4cc;padding:.3em .6em;margin:.4em 0}
.zero{font-weight:700;text-decoration:underline}
.muted{color:#555}.small{font-size:.85em}
code,pre{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:.88em}
pre{background:#f5f5f5;border:1px solid #ddd;padding:.5em;overflow-x:auto;white-space:pre-wrap}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:.1em 1em;margin:.4em 0}dl.meta dt{font-weight:600}dl.meta dd{margin:0}
.totals{display:flex;gap:1em;flex-wrap:wrap;margin:.6em 0}.totals div{border:1px solid #888;padding:.3em .8em}
.totals b{font-size:1.3em;display:block}
#controls{margin:.6em 0}#controls input,#controls select{font-size:1em;margin-right:1em}
figure{margin:.6em 0}figcaption{font-size:.85em;color:#333;max-width:760px}
svg text{font-family:system-ui,sans-serif}
nav.toc a{margin-right:.8em}
)CSS";

// Sorting and filtering of tables marked class="sortable"; the page reads
// the same without it (controls stay hidden). Errors are written into the
// DOM so a headless browser test can see them.
const char* kOnError = "window.onerror=function(m){document.documentElement.dataset.jsError=String(m);};";
const char* kScript = R"JS(
(function(){
function key(td){var v=td.getAttribute('data-v');if(v===null)v=td.textContent;var f=parseFloat(v);return isNaN(f)||!/^[-+0-9.Ie]/.test(v)?{s:v.toLowerCase()}:{n:f};}
function cmp(a,b){if(a.n!==undefined&&b.n!==undefined)return a.n-b.n;if(a.n!==undefined)return -1;if(b.n!==undefined)return 1;return a.s<b.s?-1:a.s>b.s?1:0;}
document.querySelectorAll('table.sortable').forEach(function(t){
 var ths=t.tHead.rows[0].cells;
 Array.prototype.forEach.call(ths,function(th,i){th.classList.add('sort');th.tabIndex=0;
  function go(){var asc=!th.classList.contains('asc');Array.prototype.forEach.call(ths,function(h){h.classList.remove('asc','desc');});
   th.classList.add(asc?'asc':'desc');var rows=Array.prototype.slice.call(t.tBodies[0].rows);
   rows.sort(function(a,b){var r=cmp(key(a.cells[i]),key(b.cells[i]));return asc?r:-r;});
   rows.forEach(function(r){t.tBodies[0].appendChild(r);});}
  th.addEventListener('click',go);th.addEventListener('keydown',function(e){if(e.key==='Enter')go();});});
});
var c=document.getElementById('controls');
if(c){c.hidden=false;var q=document.getElementById('filter'),v=document.getElementById('verdict'),n=document.getElementById('shown');
 function apply(){var s=q.value.toLowerCase(),want=v.value,k=0,rows=document.querySelectorAll('#results tbody tr');
  rows.forEach(function(r){var ok=(!s||r.textContent.toLowerCase().indexOf(s)>=0)&&(!want||r.dataset.verdict===want);r.hidden=!ok;k+=ok;});
  n.textContent=k+' of '+rows.length+' shown';}
 q.addEventListener('input',apply);v.addEventListener('change',apply);apply();}
document.documentElement.dataset.jsReady='1';
})();
)JS";

}  // namespace

std::string page(std::string_view title, std::string_view body) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
      // Nothing may load from elsewhere: the site is opened from disk or published as is.
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
      "script-src 'unsafe-inline'; img-src data:\">"
      "<title>{}</title><style>{}</style><script>{}</script></head>\n<body><main>\n{}\n</main><script>{}</script></body></html>\n",
      escape_html(title), kStyle, kOnError, body, kScript);
}

}  // namespace kc::reports::site
