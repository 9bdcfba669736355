# SPDX-License-Identifier: MIT
# kl_add_test(<name> LABELS <model|gpu|cli|ui|gl>... SOURCES <files>... [LIBS <targets>...])
# Every suite is a Qt Test executable. Labels say what a suite needs:
#   model: nothing;  cli: the kernellab-cli binary;  gpu: a working CUDA device (skips otherwise);
#   ui: Qt widgets on the offscreen platform;  gl: OpenGL (run under xvfb-run; skips otherwise).
#   loaders: covers the file loaders and parsers (also run under ASan/UBSan: scripts/sanitize.sh).
# QSKIP alone reports Passed, so gpu and gl suites map "SKIP   :" to CTest's Skipped.
function(kl_add_test name)
  cmake_parse_arguments(T "" "" "LABELS;SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE Qt6::Core Qt6::Test kernellab_gpu ${T_LIBS})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests/common)
  target_compile_definitions(${name} PRIVATE
    KERNELLAB_CLI_PATH="$<TARGET_FILE:kernellab-cli>"
    KERNELLAB_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    KERNELLAB_TEST_DATA_DIR="${PROJECT_SOURCE_DIR}/tests/data")
  add_test(NAME ${name} COMMAND ${name})
  set(env "KERNELLAB_TEST_TMP=${CMAKE_CURRENT_BINARY_DIR}/tmp")
  if("ui" IN_LIST T_LABELS)
    list(APPEND env "QT_QPA_PLATFORM=offscreen")
  endif()
  set_tests_properties(${name} PROPERTIES LABELS "${T_LABELS}" ENVIRONMENT "${env}" TIMEOUT 900)
  if("gpu" IN_LIST T_LABELS OR "gl" IN_LIST T_LABELS)
    set_tests_properties(${name} PROPERTIES SKIP_REGULAR_EXPRESSION "SKIP   :")
  endif()
  if("gpu" IN_LIST T_LABELS)
    set_tests_properties(${name} PROPERTIES RESOURCE_LOCK gpu)
  endif()
  if("cli" IN_LIST T_LABELS)
    add_dependencies(${name} kernellab-cli)
  endif()
  # The loaders' suites, built alone by scripts/sanitize.sh.
  if("loaders" IN_LIST T_LABELS)
    if(NOT TARGET kl_loader_tests)
      add_custom_target(kl_loader_tests)
    endif()
    add_dependencies(kl_loader_tests ${name})
  endif()
endfunction()
