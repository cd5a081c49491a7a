/* kconform plug-in ABI: how kconform grades a kernel library it did not
 * write. Plain C (C99), no kconform headers or libraries needed.
 *
 * A plug-in is a shared library that exports one function,
 *
 *     int kconform_plugin_register(kc_plugin_info* info);
 *
 * which fills `info` (name, version, build flags, the kernels it implements)
 * and returns KC_PLUGIN_ABI_VERSION. kconform loads it with
 * `kconform run --backend plugin:PATH` and calls each kernel in a worker
 * process, so a kernel that crashes, aborts, hangs or writes outside its
 * output is reported as a failure of that kind and the run goes on.
 *
 * Kernel names are those of the kernel inventory ("exp", "sum_dim", ...),
 * with the inputs, parameters and outputs their contract describes
 * (`kconform list`). A kernel entry point receives dtype-tagged contiguous
 * row-major buffers and returns its outputs through `alloc_output`, or a
 * status from the fixed list below (no string matching): KC_ERR_* values name
 * the precondition rule broken, `operand` the operand or parameter. */
#ifndef KCONFORM_PLUGIN_H
#define KCONFORM_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Raised whenever a struct below changes layout or meaning. Version 2
 * appended `rule` to kc_error; kconform still loads version 1 plug-ins
 * (which leave it empty). */
#define KC_PLUGIN_ABI_VERSION 2
#define KC_PLUGIN_ABI_OLDEST 1

typedef enum kc_dtype { KC_F32 = 0, KC_F64 = 1, KC_BF16 = 2, KC_F16 = 3, KC_U32 = 4, KC_U8 = 5 } kc_dtype;

/* One input tensor: `rank` dims (row-major, contiguous) and `bytes` bytes at
 * `data` (numel x dtype size when the call is valid; a bad-input check may
 * pass a wrong size or negative dims on purpose). Read-only: the pages are
 * mapped read-only, and inaccessible guard pages surround every buffer, so
 * a stray read or write faults and is reported naming the operand. A
 * buffer is aligned to its element size only (`--align N` asks for more):
 * it lies against the guard after its end in every other call. */
typedef struct kc_tensor {
  kc_dtype dtype;
  int32_t rank;
  const int64_t* dims;
  const void* data;
  size_t bytes;
} kc_tensor;

typedef enum kc_param_kind { KC_PARAM_INT = 0, KC_PARAM_REAL = 1, KC_PARAM_SHAPE = 2 } kc_param_kind;

/* One named parameter ("n", "c", "dim", "target", ...). */
typedef struct kc_param {
  const char* name;
  kc_param_kind kind;
  int64_t integer;       /* KC_PARAM_INT */
  double real;           /* KC_PARAM_REAL */
  int32_t rank;          /* KC_PARAM_SHAPE: `rank` values at `dims` */
  const int64_t* dims;
} kc_param;

/* The precondition rules, as the contracts name them. */
typedef enum kc_status {
  KC_OK = 0,
  KC_ERR_ARITY = 1,                  /* "arity": wrong number of inputs */
  KC_ERR_SHAPE_NEGATIVE_DIM = 2,     /* "shape.negative_dim" */
  KC_ERR_BUFFER_SIZE = 3,            /* "buffer.size": bytes != numel x dtype size */
  KC_ERR_DTYPE_UNSUPPORTED = 4,      /* "dtype.unsupported" */
  KC_ERR_DTYPE_MISMATCH = 5,         /* "dtype.mismatch" */
  KC_ERR_SHAPE_MISMATCH = 6,         /* "shape.mismatch" */
  KC_ERR_PARAM_MISSING = 7,          /* "param.missing" */
  KC_ERR_PARAM_TYPE = 8,             /* "param.type" */
  KC_ERR_PARAM_DOMAIN = 9,           /* "param.domain" */
  KC_ERR_DIM_OUT_OF_RANGE = 10,      /* "dim.out_of_range" */
  KC_ERR_DIM_EMPTY = 11,             /* "dim.empty" */
  KC_ERR_BROADCAST_INCOMPATIBLE = 12, /* "broadcast.incompatible" */
  KC_ERR_TARGET_RANK = 13,           /* "target.rank" */
  KC_ERR_TARGET_INCOMPATIBLE = 14,   /* "target.incompatible" */
  KC_ERR_OTHER = 15                  /* anything else: a failure of the call */
} kc_status;

/* What a kernel returns besides its outputs when it rejects a call. */
typedef struct kc_error {
  char operand[64];   /* the operand or parameter ("x", "inputs", "n") */
  char message[256];  /* for a person */
  /* (ABI 2) The rule broken, as the kernel's contract names it
   * (`kconform list --json`: each kernel's preconditions), for the rules the
   * status list has no value for ("rank.min", "index.out_of_range",
   * "padding.too_large", ...). When set it names the rule whatever the
   * status; left empty, the status does. A name no contract uses (a
   * misspelling) is kept as written: the bad-input check that expected
   * another rule fails, quoting it. */
  char rule[64];
} kc_error;

/* Outputs are allocated by kconform: alloc_output(ctx, dtype, rank, dims)
 * returns a buffer of numel x dtype size bytes for the next output, or NULL
 * (bad arguments, or more than --max-output-mb for the call: the call then
 * fails). Write every element, exactly that many bytes, before returning:
 * the buffer turns read-only when the kernel returns. Each call starts in
 * the default floating-point environment and must leave it so; a thread or
 * process the kernel starts must be asleep or gone when it returns (README,
 * "Isolation"). */
typedef void* (*kc_alloc_output)(void* ctx, kc_dtype dtype, int32_t rank, const int64_t* dims);

typedef kc_status (*kc_kernel_fn)(const kc_tensor* inputs, int32_t n_inputs, const kc_param* params,
                                  int32_t n_params, kc_alloc_output alloc_output, void* alloc_ctx, kc_error* error);

/* The plug-in's own accuracy claim for one kernel x dtype (optional): the
 * run grades against it and the report shows it beside the contract's
 * bound and the measurement. */
typedef enum kc_claim_metric {
  KC_CLAIM_NONE = 0,
  KC_CLAIM_FRAC_ULP = 1,   /* max |y - z| / ulp(z) */
  KC_CLAIM_DISTANCE = 2,   /* max integer ulp distance from RN(z) */
  KC_CLAIM_RELATIVE = 3,   /* max |y - z| / |z| */
  KC_CLAIM_ABSOLUTE = 4    /* max |y - z| */
} kc_claim_metric;

typedef struct kc_kernel {
  const char* name;         /* inventory name: "exp" */
  kc_dtype dtype;           /* the input dtype this entry implements */
  kc_kernel_fn fn;
  kc_claim_metric claim;    /* KC_CLAIM_NONE: no claim */
  double claim_bound;
  /* Non-NULL: the plug-in expects this kernel x dtype to fail its contract,
   * for this reason. A pass is reported as an unexpected pass. */
  const char* expected_failure;
} kc_kernel;

typedef struct kc_plugin_info {
  const char* name;         /* "fastmath" */
  const char* version;      /* "1.2.0" */
  const char* build_flags;  /* "-O3 -mavx2", as the library was built */
  const kc_kernel* kernels;
  int32_t n_kernels;
} kc_plugin_info;

/* The one symbol a plug-in exports (declared here so that a C++ plug-in
 * defines it with C linkage). Returns KC_PLUGIN_ABI_VERSION. */
__attribute__((visibility("default"))) int kconform_plugin_register(kc_plugin_info* info);
typedef int (*kc_plugin_register_fn)(kc_plugin_info* info);
#define KC_PLUGIN_REGISTER_SYMBOL "kconform_plugin_register"

#ifdef __cplusplus
}
#endif

#endif /* KCONFORM_PLUGIN_H */
