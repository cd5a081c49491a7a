// The FKC reader, audit and export (fkc/): a block's claims and the bytes
// of its precision block; errors that name the file and line; each verdict
// reached (and a claim refuted) on a hand-built results document; an export
// that changes nothing but the precision blocks and whose claims the same
// results confirm.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "core/error.h"
#include "fkc/audit.h"
#include "fkc/document.h"
#include "fkc/export.h"

namespace {

using kc::fkc::Verdict;
using nlohmann::json;

std::string block(const std::string& kernel, const std::string& precision, const std::string& dtypes = "[F32, F64]") {
  return fmt::format(
      "## {0}\n\nProse.\n\n```fkc\nkernel: {0}\naccept:\n  inputs:\n    - name: x\n      dtypes: {2}\n"
      "      layout: {{ contiguous: required }}\nprecision:\n{1}\ndeterminism: bitwise\n```\n\n---\n",
      kernel, precision, dtypes);
}

const std::string kExp =
    "  bit_stable_on_same_hardware: true   # same libm\n  max_ulp: 1\n  max_relative: ~\n  max_absolute: ~\n"
    "  audited: true\n  notes: \"typically <= 1 ULP\"\n";

// A results document holding `exp` at the given figures per dtype.
json results(std::int64_t f32_distance, double f32_frac = 0.5, bool stable = true) {
  auto result = [&](const char* dt, std::int64_t dist, double frac) {
    json at{{"input", 0.5}, {"input_hex", std::string(dt) == "f32" ? "0x3f000000" : "0x3fe0000000000000"},
            {"repro", fmt::format("kconform run --kernel exp --dtype {} --input 0x...", dt)}};
    return json{{"dtype", dt},
                {"accuracy",
                 {{"graded", 100}, {"max_distance", dist}, {"max_frac_ulp", frac}, {"max_relative", 6e-8}, {"max_absolute", 1e-7},
                  {"at_max_distance", at}, {"at_max_relative", at}}},
                {"checks", json::array({{{"name", "deterministic: same input, same bits"}, {"kind", "determinism"},
                                         {"passed", stable ? 1 : 0}, {"failed", stable ? 0 : 1}}})},
                {"failures", json::array()}};
  };
  json contract{{"accuracy", json::array({{{"dtype", "f32"}, {"kind", "ulp bound"}}, {{"dtype", "f64"}, {"kind", "ulp bound"}}})}};
  return {{"run", {{"kconform", "0.1.0"}, {"backend", "reference"}, {"seed", 1}, {"commit", "abc"}, {"cases_per_kernel", 100}}},
          {"kernels", json::array({{{"name", "exp"}, {"contract", contract},
                                    {"results", json::array({result("f32", f32_distance, f32_frac), result("f64", 1, 0.5)})}}})}};
}

const kc::fkc::ClaimAudit& claim(const kc::fkc::Audit& a, const std::string& name, const std::string& dtype) {
  for (const auto& k : a.kernels)
    for (const auto& c : k.claims)
      if (c.claim == name && c.dtype == dtype) return c;
  throw std::runtime_error("no claim " + name + " " + dtype);
}

std::string error_of(const std::string& text) {
  try {
    kc::fkc::parse_document(text, "x.fkc.md");
  } catch (const kc::UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(Fkc, ReadsClaimsDtypesAndThePrecisionBytes) {
  const std::string text = "# title\n\n```rust\n```fkc\nkernel: inside_a_rust_fence\n```\n" + block("exp", kExp) + block("neg", kExp);
  const auto d = kc::fkc::parse_document(text, "x.fkc.md");
  ASSERT_EQ(d.blocks.size(), 2u);  // the example inside another language's fence is not a contract
  const auto& b = d.blocks[0];
  EXPECT_EQ(b.kernel, "exp");
  EXPECT_EQ(b.dtypes, (std::vector<std::string>{"f32", "f64"}));
  EXPECT_EQ(b.precision.max_ulp, 1u);
  EXPECT_EQ(b.precision.bit_stable_on_same_hardware, true);
  EXPECT_FALSE(b.precision.max_relative);
  EXPECT_EQ(b.precision.notes, "typically <= 1 ULP");
  EXPECT_EQ(text.substr(b.precision_begin, b.precision_end - b.precision_begin), "precision:\n" + kExp);
  EXPECT_EQ(text.substr(0, b.precision_begin).find("precision:"), std::string::npos);
}

TEST(Fkc, AnUnreadableBlockNamesTheFileAndLine) {
  const std::string head = "# t\n\n";  // the fence is on line 5 of block(): lines 3.. here
  EXPECT_EQ(error_of(head + "```fkc\nkernel: exp\n"), "x.fkc.md:3: the ```fkc block opened here is never closed");
  const std::string neg = block("exp", "  max_ulp: -1\n");
  const int fence = 3 + 4, max_ulp_line = fence + 8;  // after the prose: kernel, accept (5 lines), precision:, max_ulp
  EXPECT_EQ(error_of(head + neg),
            fmt::format("x.fkc.md:{}: precision.max_ulp must be an integer ulp distance from 0 to 4294967295 or ~, not '-1'", max_ulp_line));
  for (const char* bad : {"  max_ulp: 1.5\n", "  max_ulp: 4294967296\n", "  max_relative: lots\n", "  bit_stable_on_same_hardware: maybe\n"})
    EXPECT_NE(error_of(head + block("exp", bad)).find("x.fkc.md:"), std::string::npos) << bad;
  EXPECT_NE(error_of(head + "```fkc\nkernel: [a\n```\n").find("x.fkc.md:"), std::string::npos);
  EXPECT_NE(error_of(head + "```fkc\nop_kind: Exp\nprecision:\n  max_ulp: 1\n```\n").find("names no kernel"), std::string::npos);
  EXPECT_NE(error_of(head + "```fkc\nkernel: exp\n```\n").find("no precision: mapping"), std::string::npos);
}

TEST(Fkc, AuditConfirmsRefutesAndSaysWhatWasNotMeasured) {
  const auto d = kc::fkc::parse_document(block("exp", kExp, "[F32, F64, BF16]") + block("log", kExp), "x.fkc.md");
  auto a = kc::fkc::audit({d}, results(1));
  EXPECT_EQ(claim(a, "max_ulp", "f32").verdict, Verdict::confirmed);
  EXPECT_EQ(claim(a, "bit_stable_on_same_hardware", "f64").verdict, Verdict::confirmed);
  EXPECT_EQ(claim(a, "max_relative", "f32").verdict, Verdict::unclaimed);
  EXPECT_EQ(claim(a, "max_relative", "f32").measured, "6e-08");
  EXPECT_EQ(a.kernels[0].dtypes_not_graded, (std::vector<std::string>{"bf16"}));
  EXPECT_EQ(a.not_graded(), (std::vector<std::string>{"log"}));
  EXPECT_EQ(a.count(Verdict::refuted), 0);

  a = kc::fkc::audit({d}, results(2, 1.9, false));  // one ulp too far, and not bit-stable
  const auto& r = claim(a, "max_ulp", "f32");
  EXPECT_EQ(r.verdict, Verdict::refuted);
  EXPECT_EQ(r.measured, "2");
  EXPECT_EQ(r.input_hex, "0x3f000000");
  EXPECT_EQ(claim(a, "max_ulp", "f64").verdict, Verdict::confirmed);
  EXPECT_EQ(claim(a, "bit_stable_on_same_hardware", "f32").verdict, Verdict::refuted);
  const std::string text = kc::fkc::audit_text(a, false);
  EXPECT_NE(text.find("REFUTED   x.fkc.md:12 exp f32 max_ulp: claimed 1, measured 2 at x = 0.5 (0x3f000000)"), std::string::npos) << text;

  // An element with no finite error refutes every numeric claim, even max_ulp 2^32-1.
  const auto loose = kc::fkc::parse_document(block("exp", "  max_ulp: 4294967295\n  max_relative: 1e300\n"), "x.fkc.md");
  json inf = results(0, 0);
  inf["kernels"][0]["results"][0]["accuracy"]["max_frac_ulp"] = "inf";
  a = kc::fkc::audit({loose}, inf);
  EXPECT_EQ(claim(a, "max_ulp", "f32").verdict, Verdict::refuted);
  EXPECT_EQ(claim(a, "max_relative", "f32").verdict, Verdict::refuted);
  EXPECT_EQ(claim(a, "max_ulp", "f64").verdict, Verdict::confirmed);
}

TEST(Fkc, ExportReplacesOnlyThePrecisionBlocksAndItsClaimsHold) {
  const std::string text = "# t\n" + block("exp", kExp) + block("log", kExp) + "tail\n";
  const auto d = kc::fkc::parse_document(text, "x.fkc.md");
  const json res = results(3, 2.7);
  const auto e = kc::fkc::export_document(d, res);
  EXPECT_EQ(e.replaced, (std::vector<std::string>{"exp"}));
  EXPECT_EQ(e.not_graded, (std::vector<std::string>{"log"}));
  const auto out = kc::fkc::parse_document(e.text, "y.fkc.md");
  ASSERT_EQ(out.blocks.size(), 2u);
  // Outside the first precision block, every byte is the input's.
  const auto& b = d.blocks[0];
  const auto& nb = out.blocks[0];
  EXPECT_EQ(e.text.substr(0, nb.precision_begin), text.substr(0, b.precision_begin));
  EXPECT_EQ(e.text.substr(nb.precision_end), text.substr(b.precision_end));
  EXPECT_EQ(nb.precision.max_ulp, 3u);  // the largest distance over f32 (3) and f64 (1)
  EXPECT_FALSE(nb.precision.max_relative);
  EXPECT_EQ(nb.precision.audited, true);
  EXPECT_NE(nb.precision.notes.find("f32 max distance 3 (2.7 ulp)"), std::string::npos) << nb.precision.notes;
  EXPECT_NE(nb.precision.notes.find("accuracy tier reference"), std::string::npos) << "the export names its tier";
  const auto a = kc::fkc::audit({out}, res);
  EXPECT_EQ(a.count(Verdict::refuted), 0);
  EXPECT_EQ(claim(a, "max_ulp", "f32").verdict, Verdict::confirmed);

  // Condition-aware: no ulp bound, the relative and absolute figures instead.
  json ca = res;
  for (auto& acc : ca["kernels"][0]["contract"]["accuracy"]) acc["kind"] = "condition-aware bound";
  const auto pb = kc::fkc::parse_document(kc::fkc::export_document(d, ca).text, "z.fkc.md").blocks[0].precision;
  EXPECT_FALSE(pb.max_ulp);
  EXPECT_EQ(pb.max_relative, 6e-8);
  EXPECT_EQ(pb.max_absolute, 1e-7);
}

}  // namespace
