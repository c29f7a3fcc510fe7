// The Tessera C++ EDSL: `#include "lang/Tessera.h"` and
// `using namespace tessera::lang;` to write kernels that read like Triton.
#ifndef TESSERA_LANG_TESSERA_H
#define TESSERA_LANG_TESSERA_H

#include "lang/ControlFlow.h"
#include "lang/Memory.h"
#include "lang/Ops.h"
#include "lang/Pointer.h"
#include "lang/Scalar.h"
#include "lang/Tile.h"
#include "lang/Trace.h"

#endif // TESSERA_LANG_TESSERA_H
