# The formatting check (issue 22): every C++ source and header under the project's source folders is
# as .clang-format says. Run by CTest as `format`:
#   cmake -DCLANG_FORMAT=/usr/bin/clang-format -DSOURCE_DIR=<project> -P check-format.cmake
# tests/CMakeLists.txt registers it only with clang-format 14 (Debian 12's, what CI has): formatting
# differs between clang-format releases.
set(files)
foreach(folder IN ITEMS app core ui report text tests)
    file(GLOB_RECURSE found "${SOURCE_DIR}/${folder}/*.cpp" "${SOURCE_DIR}/${folder}/*.h")
    list(APPEND files ${found})
endforeach()
list(LENGTH files count)
# In groups, so that no command line grows past the system's limit.
set(failed 0)
while(files)
    list(LENGTH files left)
    if(left GREATER 40)
        list(SUBLIST files 0 40 group)
        list(SUBLIST files 40 -1 files)
    else()
        set(group ${files})
        set(files)
    endif()
    execute_process(COMMAND "${CLANG_FORMAT}" --dry-run --Werror ${group} RESULT_VARIABLE result
                    ERROR_VARIABLE complaints)
    if(NOT result EQUAL 0)
        set(failed 1)
        message("${complaints}")
    endif()
endwhile()
if(failed)
    message(FATAL_ERROR "format: sources above differ from .clang-format; run clang-format -i on them")
endif()
message("format: ${count} files as .clang-format says")
