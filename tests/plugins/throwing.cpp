// The misbehaving plug-in built as C++, letting an exception escape a kernel.
#include <stdexcept>

#define MODE_THROW
#define KC_TEST_THROW() throw std::runtime_error("neg: an internal error")
#include "misbehaving.c"
