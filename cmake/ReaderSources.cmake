# The sources the results reader and the FKC reader link on their own: the
# fuzz targets (tests/fuzz, a standalone clang build) and the corpus replay
# of the main build (tests/CMakeLists.txt) both take them from here, so a
# reader source that starts calling into another library breaks the main
# build's link at once, not only the nightly fuzz build. Set KC_ROOT first.
set(KC_READER_SOURCES
  ${KC_ROOT}/reports/site/documents.cpp ${KC_ROOT}/reports/site/html_util.cpp ${KC_ROOT}/reports/site/svg_plots.cpp
  ${KC_ROOT}/reports/site/index_page.cpp ${KC_ROOT}/reports/site/kernel_page.cpp ${KC_ROOT}/reports/site/diff_page.cpp
  ${KC_ROOT}/reports/site/compare_page.cpp ${KC_ROOT}/reports/merge.cpp ${KC_ROOT}/reports/site/result_tables.cpp
  ${KC_ROOT}/engine/combine.cpp ${KC_ROOT}/engine/error_profile.cpp ${KC_ROOT}/reports/results_reader.cpp ${KC_ROOT}/reports/result_json.cpp
  ${KC_ROOT}/reports/json_number.cpp ${KC_ROOT}/engine/findings.cpp
  ${KC_ROOT}/checks/bias_statistic.cpp ${KC_ROOT}/reports/html.cpp ${KC_ROOT}/reports/output_folder.cpp
  ${KC_ROOT}/oracles/det_math.cpp ${KC_ROOT}/core/dtype.cpp)
set(KC_FKC_READER_SOURCES
  ${KC_ROOT}/fkc/document.cpp ${KC_ROOT}/fkc/measured.cpp ${KC_ROOT}/fkc/audit.cpp ${KC_ROOT}/fkc/export.cpp
  ${KC_READER_SOURCES})
