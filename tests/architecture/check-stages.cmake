# The core's folders are the stages of its pipeline (docs/architecture.md), and each stage may use only
# the stages listed for it below: the allocator simulation knows nothing of the planner, the model
# nothing of the analysis. Run by CTest as `stages`:
#   cmake -DSOURCE_DIR=<project> -P check-stages.cmake
# It reads every #include in core/src/<stage>/ and core/include/headroom/<stage>/ that names a stage
# ("headroom/<stage>/X.h" or, inside the core, "<stage>/X.h"), and fails on any not allowed here. No
# source or header may sit outside a stage's folder, and none may include Qt.
cmake_minimum_required(VERSION 3.25)
set(stages support model setup layers analysis importers editing step allocator measured estimate planner)
set(allowed_support)
set(allowed_model support)
set(allowed_setup support model)
set(allowed_layers support model setup)
set(allowed_analysis support model setup layers)
# An importer checks the network it built against the file's own shapes by analysing it.
set(allowed_importers support model setup layers analysis)
set(allowed_editing support model setup layers analysis)
set(allowed_step support model setup layers analysis)
set(allowed_allocator support model setup layers analysis step)
# A measured run (PyTorch's memory snapshots, profiler exports) is read into a timeline; its allocations
# may be replayed through the allocator simulation.
set(allowed_measured support model setup layers analysis step allocator)
# The plan's evaluate() opens a file's sequence length (importers) and runs every stage below it; the
# comparison of a plan with a measured run reads the run.
set(allowed_estimate support model setup layers analysis importers step allocator measured)
set(allowed_planner support model setup layers analysis importers editing step allocator measured estimate)

set(problems)
foreach(base IN ITEMS "core/src" "core/include/headroom")
    file(GLOB_RECURSE files RELATIVE "${SOURCE_DIR}/${base}" "${SOURCE_DIR}/${base}/*.cpp" "${SOURCE_DIR}/${base}/*.h")
    foreach(file IN LISTS files)
        string(REGEX MATCH "^[^/]+" stage "${file}")
        if(NOT file MATCHES "/" OR NOT stage IN_LIST stages)
            list(APPEND problems "${base}/${file} is not in a stage's folder (${stages})")
            continue()
        endif()
        file(STRINGS "${SOURCE_DIR}/${base}/${file}" includes REGEX "^[ \t]*#[ \t]*include")
        foreach(line IN LISTS includes)
            if(line MATCHES "#[ \t]*include[ \t]*[<\"](Q[A-Za-z]+|Qt[A-Za-z]*/)")
                list(APPEND problems "${base}/${file} includes Qt: ${line}")
            endif()
            if(line MATCHES "#[ \t]*include[ \t]*[<\"](headroom/)?([A-Za-z]+)/")
                set(used "${CMAKE_MATCH_2}")
                if(used IN_LIST stages AND NOT used STREQUAL stage AND NOT used IN_LIST allowed_${stage})
                    list(APPEND problems "${base}/${file} (${stage}) uses ${used}: ${line}")
                endif()
            endif()
        endforeach()
    endforeach()
endforeach()
if(problems)
    list(JOIN problems "\n  " text)
    message(FATAL_ERROR "The core's stages depend on each other out of order (tests/architecture/check-stages.cmake):\n  ${text}")
endif()
message(STATUS "Every include in core/ follows the stages' order")
