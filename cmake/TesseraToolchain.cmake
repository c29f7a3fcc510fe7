# Finds the system LLVM/MLIR 22 and sets up the flags every Tessera target shares.
find_package(MLIR REQUIRED CONFIG HINTS /usr/lib/llvm-22/lib/cmake/mlir)
if(NOT LLVM_VERSION_MAJOR EQUAL 22)
  message(FATAL_ERROR "Tessera needs LLVM/MLIR 22, found ${LLVM_PACKAGE_VERSION} in ${MLIR_DIR}; "
                      "run scripts/bootstrap.sh or pass -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir")
endif()
message(STATUS "Using MLIR ${LLVM_PACKAGE_VERSION} from ${MLIR_DIR}")

list(APPEND CMAKE_MODULE_PATH "${MLIR_CMAKE_DIR}" "${LLVM_CMAKE_DIR}")
include(TableGen)
include(AddLLVM)
include(AddMLIR)
include(HandleLLVMOptions)

include_directories(SYSTEM ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
link_directories(${LLVM_BUILD_LIBRARY_DIR})
separate_arguments(TESSERA_LLVM_DEFINITIONS NATIVE_COMMAND ${LLVM_DEFINITIONS})
add_definitions(${TESSERA_LLVM_DEFINITIONS})

set(TESSERA_LLVM_TOOLS_DIR "${LLVM_TOOLS_BINARY_DIR}" CACHE PATH
  "Where FileCheck, lit and the other LLVM tools live")

# ccache with the checkout as its base directory: paths under it are hashed
# relative to it, so a fresh clone elsewhere (CI) reuses the cached objects.
find_program(TESSERA_CCACHE ccache)
if(TESSERA_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(_tessera_ccache ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${PROJECT_SOURCE_DIR} ${TESSERA_CCACHE})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${_tessera_ccache})
  set(CMAKE_C_COMPILER_LAUNCHER ${_tessera_ccache})
endif()

# Every Tessera library links the shared libMLIR/libLLVM only: mixing in static
# MLIR archives would give a second copy of MLIR's global registries.
set(TESSERA_MLIR_LIBS MLIR LLVM)

# tessera_library(NAME SOURCES... [DEPENDS tablegen targets] [LINK libs])
function(tessera_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPENDS;LINK" ${ARGN})
  add_library(${name} SHARED ${ARG_SOURCES})
  target_link_libraries(${name} PUBLIC ${ARG_LINK} ${TESSERA_MLIR_LIBS})
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  set_target_properties(${name} PROPERTIES BUILD_RPATH "${PROJECT_BINARY_DIR}/lib;${LLVM_LIBRARY_DIR}")
endfunction()

set(TESSERA_PYTHON "" CACHE FILEPATH
  "Python that runs the Python tests and builds the Python package (scripts/bootstrap.sh sets it)")
