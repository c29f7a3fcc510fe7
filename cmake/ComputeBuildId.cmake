# cmake -DOUTPUT=file.inc -DSOURCES="a|b|..." -P ComputeBuildId.cmake
# Writes the SHA-256 of the given sources' contents as TESSERA_COMPILER_BUILD_ID.
# Kernel cache keys carry it, so that code compiled by an older compiler of the
# same version number is never loaded.
string(REPLACE "|" ";" SOURCES "${SOURCES}")
set(contents "")
foreach(source IN LISTS SOURCES)
  file(SHA256 "${source}" digest)
  string(APPEND contents "${digest}\n")
endforeach()
string(SHA256 id "${contents}")
string(SUBSTRING "${id}" 0 16 id)
set(text "#define TESSERA_COMPILER_BUILD_ID \"${id}\"\n")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" previous)
endif()
if(NOT previous STREQUAL text)
  file(WRITE "${OUTPUT}" "${text}")
endif()
