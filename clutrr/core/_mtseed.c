/* clutrr.core._mtseed: random.Random(n)'s Mersenne Twister state for an int n, seeded faster.

   random.Random(n) seeds MT19937 by Matsumoto and Nishimura's init_by_array, with n's absolute
   value cut into 32-bit words, least significant first (one word, 0, for n == 0). That routine
   first fills the state by init_genrand(19650218), 623 serial steps that never depend on n; this
   module computes that state once, at import, and copies it for each seed before the two mixing
   passes that do depend on n.

   The state is written into the generator's object: CPython's _random.Random is laid out as
   RandomLayout below (a private struct). The module refuses to load (ImportError) if the type's
   size says otherwise, and clutrr.core.draws compares its results with random.Random(n) for a
   few seeds before using it. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define MT_N 624

typedef struct {
    PyObject_HEAD
    int index;
    uint32_t state[MT_N];
} RandomLayout;

static uint32_t genrand_start[MT_N]; /* init_genrand(19650218) */
static PyTypeObject *random_type;    /* _random.Random */

static void
fill_genrand_start(void)
{
    genrand_start[0] = 19650218u;
    for (uint32_t i = 1; i < MT_N; i++) {
        uint32_t prev = genrand_start[i - 1];
        genrand_start[i] = 1812433253u * (prev ^ (prev >> 30)) + i;
    }
}

/* init_by_array's two passes over mt, which holds the init_genrand(19650218) state. Each step
   depends on the one before: the word just written is kept in `prev` (a register), not read back. */
static void
mix_key(uint32_t *mt, const uint32_t *key, size_t words)
{
    size_t i = 1, j = 0;
    uint32_t prev = mt[0];
    for (size_t k = words > MT_N ? words : MT_N; k > 0; k--) {
        prev = (mt[i] ^ ((prev ^ (prev >> 30)) * 1664525u)) + key[j] + (uint32_t)j;
        mt[i] = prev;
        if (++i >= MT_N) {
            mt[0] = prev;
            i = 1;
        }
        if (++j >= words) {
            j = 0;
        }
    }
    for (size_t k = MT_N - 1; k > 0; k--) {
        prev = (mt[i] ^ ((prev ^ (prev >> 30)) * 1566083941u)) - (uint32_t)i;
        mt[i] = prev;
        if (++i >= MT_N) {
            mt[0] = prev;
            i = 1;
        }
    }
    mt[0] = 0x80000000u;
}

/* The 32-bit words of a non-negative int, least significant first, in a new PyMem buffer; *words
   is set to their count. NULL with an exception set on failure. */
static uint32_t *
long_words(PyObject *magnitude, size_t *words)
{
    PyObject *bit_length = PyObject_CallMethod(magnitude, "bit_length", NULL);
    if (bit_length == NULL) {
        return NULL;
    }
    size_t bits = PyLong_AsSize_t(bit_length);
    Py_DECREF(bit_length);
    if (bits == (size_t)-1 && PyErr_Occurred()) {
        return NULL;
    }
    size_t count = bits ? (bits + 31) / 32 : 1;
    PyObject *bytes = PyObject_CallMethod(magnitude, "to_bytes", "ns", (Py_ssize_t)(count * 4), "little");
    if (bytes == NULL) {
        return NULL;
    }
    uint32_t *key = PyMem_New(uint32_t, count);
    if (key == NULL) {
        Py_DECREF(bytes);
        PyErr_NoMemory();
        return NULL;
    }
    const unsigned char *b = (const unsigned char *)PyBytes_AS_STRING(bytes);
    for (size_t w = 0; w < count; w++, b += 4) {
        key[w] = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    }
    Py_DECREF(bytes);
    *words = count;
    return key;
}

static PyObject *
new_seeded(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "new_seeded(cls, n) takes 2 arguments");
        return NULL;
    }
    PyTypeObject *cls = (PyTypeObject *)args[0];
    PyObject *n = args[1];
    if (!PyType_Check(args[0]) || !PyType_IsSubtype(cls, random_type)) {
        PyErr_SetString(PyExc_TypeError, "new_seeded: cls must be a subclass of _random.Random");
        return NULL;
    }
    if (!PyLong_Check(n)) {
        PyErr_SetString(PyExc_TypeError, "new_seeded: n must be an int");
        return NULL;
    }
    uint32_t small[2]; /* the key of an n whose magnitude fits in 64 bits */
    uint32_t *key = small;
    size_t words;
    unsigned long long magnitude;
    int overflow;
    long long value = PyLong_AsLongLongAndOverflow(n, &overflow);
    if (value == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (!overflow) {
        magnitude = value < 0 ? 0ull - (unsigned long long)value : (unsigned long long)value;
    }
    else if (overflow > 0) { /* 2**63 or more: a 64-bit hash, half the time */
        magnitude = PyLong_AsUnsignedLongLong(n);
        if (magnitude == (unsigned long long)-1 && PyErr_Occurred()) {
            if (!PyErr_ExceptionMatches(PyExc_OverflowError)) {
                return NULL;
            }
            PyErr_Clear(); /* more than 64 bits */
            key = NULL;
        }
    }
    else {
        key = NULL; /* below -2**63 */
    }
    if (key == small) {
        small[0] = (uint32_t)magnitude;
        small[1] = (uint32_t)(magnitude >> 32);
        words = small[1] ? 2 : 1;
    }
    else {
        PyObject *absolute = PyLong_Type.tp_as_number->nb_absolute(n);
        if (absolute == NULL) {
            return NULL;
        }
        key = long_words(absolute, &words);
        Py_DECREF(absolute);
        if (key == NULL) {
            return NULL;
        }
    }
    RandomLayout *rng = (RandomLayout *)cls->tp_alloc(cls, 0);
    if (rng != NULL) {
        memcpy(rng->state, genrand_start, sizeof genrand_start);
        mix_key(rng->state, key, words);
        rng->index = MT_N;
    }
    if (key != small) {
        PyMem_Free(key);
    }
    return (PyObject *)rng;
}

static PyMethodDef mtseed_methods[] = {
    {"new_seeded", (PyCFunction)(void (*)(void))new_seeded, METH_FASTCALL,
     "new_seeded(cls, n): a new cls (a subclass of random.Random, made without calling __init__) with the "
     "state of random.Random(n), for an int n."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef mtseed_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "clutrr.core._mtseed",
    .m_doc = "random.Random(n)'s Mersenne Twister state for an int n, from init_genrand(19650218) computed once.",
    .m_size = -1,
    .m_methods = mtseed_methods,
};

PyMODINIT_FUNC
PyInit__mtseed(void)
{
    PyObject *random_module = PyImport_ImportModule("_random");
    if (random_module == NULL) {
        return NULL;
    }
    PyObject *type = PyObject_GetAttrString(random_module, "Random");
    Py_DECREF(random_module);
    if (type == NULL) {
        return NULL;
    }
    if (!PyType_Check(type) || ((PyTypeObject *)type)->tp_basicsize != (Py_ssize_t)sizeof(RandomLayout)) {
        Py_DECREF(type);
        PyErr_SetString(PyExc_ImportError, "clutrr.core._mtseed: _random.Random is not laid out as expected");
        return NULL;
    }
    random_type = (PyTypeObject *)type; /* kept for the life of the process */
    fill_genrand_start();
    return PyModule_Create(&mtseed_module);
}
