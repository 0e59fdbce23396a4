/* The JSONL and CSV lines of a common example, written straight into one byte buffer.

   clutrr.io.rows.example_lines calls example_lines() below for an example whose record has only
   the common fields (no question form, long context, difficulty or kinship terms). The JSONL
   line has the bytes of json_line(ex.record): compact JSON, keys in the record's order,
   non-ASCII text kept as UTF-8, and a newline. The CSV line has the bytes of
   csv_line([index, *row_fields(ex.row)]) in UTF-8: the original columns, Python literals written
   by repr, cells quoted when they hold a comma, quote or line break. A string that has no UTF-8
   form (a lone surrogate) gives None for that line, and the caller builds it the Python way. A
   pure-Python install never builds this module; tests/test_c_lines.py holds its lines equal to
   Python's. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    char *data;
    Py_ssize_t len;
    Py_ssize_t cap;
} Buffer;

/* One buffer for every call, grown as needed: a line is written under the GIL and copied out
   into its bytes object before the next one starts. */
static Buffer out = {NULL, 0, 0};

static int reserve(Py_ssize_t more) {
    if (out.len + more <= out.cap) {
        return 0;
    }
    Py_ssize_t cap = out.cap ? out.cap : 8192;
    while (cap < out.len + more) {
        cap *= 2;
    }
    char *grown = PyMem_Realloc(out.data, (size_t)cap);
    if (grown == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    out.data = grown;
    out.cap = cap;
    return 0;
}

static int put(const char *bytes, Py_ssize_t n) {
    if (reserve(n) < 0) {
        return -1;
    }
    memcpy(out.data + out.len, bytes, (size_t)n);
    out.len += n;
    return 0;
}

/* a string literal only (pasted to "" so that anything else does not compile): its length is its size */
#define PUT_LITERAL(s) put("" s, (Py_ssize_t)(sizeof("" s) - 1))

static const char HEX[] = "0123456789abcdef";

#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL

/* Whether any of the 8 bytes of ``w`` needs an escape: below 0x20, a quote or a backslash (each test
   is exact for the word as a whole, though not byte by byte). */
static inline int needs_escape(uint64_t w) {
    uint64_t quote = w ^ (ONES * '"'), backslash = w ^ (ONES * '\\');
    return (((w - ONES * 0x20) & ~w) | ((quote - ONES) & ~quote) | ((backslash - ONES) & ~backslash)) & HIGHS ? 1 : 0;
}

/* A string's UTF-8 bytes (kept by the string) and their count; NULL with *status -2 when the text
   has no UTF-8 form (the error cleared), or -1 on another error. */
static const char *utf8_of(PyObject *text, Py_ssize_t *n, int *status) {
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "expected str, got %.80s", Py_TYPE(text)->tp_name);
        *status = -1;
        return NULL;
    }
    const char *s = PyUnicode_AsUTF8AndSize(text, n);
    if (s == NULL) {
        *status = PyErr_ExceptionMatches(PyExc_UnicodeEncodeError) ? -2 : -1;
        if (*status == -2) {
            PyErr_Clear();
        }
    }
    return s;
}

/* A JSON string's contents, without its quotes: quotes, backslashes and control characters
   escaped as the json module and orjson escape them; everything else copied as UTF-8. Returns -2
   when the text has no UTF-8 form (the error is cleared), -1 on another error. */
static int put_escaped(PyObject *text) {
    Py_ssize_t n;
    int status;
    const char *s = utf8_of(text, &n, &status);
    if (s == NULL) {
        return status;
    }
    /* at most six bytes per input byte (\u00XX) */
    if (reserve(6 * n) < 0) {
        return -1;
    }
    char *w = out.data + out.len;
    Py_ssize_t start = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        while (i + 8 <= n) {  /* skip whole words with nothing to escape */
            uint64_t w;
            memcpy(&w, s + i, 8);
            if (needs_escape(w)) {
                break;
            }
            i += 8;
        }
        if (i >= n) {
            break;
        }
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\') {
            continue;
        }
        memcpy(w, s + start, (size_t)(i - start));
        w += i - start;
        start = i + 1;
        *w++ = '\\';
        switch (c) {
        case '"': *w++ = '"'; break;
        case '\\': *w++ = '\\'; break;
        case '\b': *w++ = 'b'; break;
        case '\f': *w++ = 'f'; break;
        case '\n': *w++ = 'n'; break;
        case '\r': *w++ = 'r'; break;
        case '\t': *w++ = 't'; break;
        default:
            *w++ = 'u';
            *w++ = '0';
            *w++ = '0';
            *w++ = HEX[c >> 4];
            *w++ = HEX[c & 15];
        }
    }
    memcpy(w, s + start, (size_t)(n - start));
    w += n - start;
    out.len = w - out.data;
    return 0;
}

/* A JSON string (see put_escaped). */
static int put_str(PyObject *text) {
    int done;
    if ((done = PUT_LITERAL("\"")) || (done = put_escaped(text))) {
        return done;
    }
    return PUT_LITERAL("\"");
}

/* An int in decimal (a bool as true or false), as JSON writes it, whatever its size. */
static int put_int(PyObject *value) {
    if (value == Py_True) {
        return PUT_LITERAL("true");
    }
    if (value == Py_False) {
        return PUT_LITERAL("false");
    }
    if (!PyLong_Check(value)) {
        PyErr_Format(PyExc_TypeError, "expected int, got %.80s", Py_TYPE(value)->tp_name);
        return -1;
    }
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (overflow == 0) {
        if (v == -1 && PyErr_Occurred()) {
            return -1;
        }
        char digits[24];
        int at = (int)sizeof(digits);
        unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
        do {
            digits[--at] = (char)('0' + u % 10);
            u /= 10;
        } while (u);
        if (v < 0) {
            digits[--at] = '-';
        }
        return put(digits + at, (Py_ssize_t)sizeof(digits) - at);
    }
    PyObject *text = PyLong_Type.tp_repr(value);  /* int's own: no Python code of a subclass runs mid-line */
    if (text == NULL) {
        return -1;
    }
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(text, &n);
    int done = s == NULL ? -1 : put(s, n);
    Py_DECREF(text);
    return done;
}

/* A string or None (null): a predicate word a KB leaves out for one gender. */
static int put_str_or_null(PyObject *value) {
    return value == Py_None ? PUT_LITERAL("null") : put_str(value);
}

/* Item i of a list or tuple (what PySequence_Fast gives), or an IndexError. */
static PyObject *item(PyObject *fast, Py_ssize_t i) {
    if (i < 0 || i >= PySequence_Fast_GET_SIZE(fast)) {
        PyErr_SetString(PyExc_IndexError, "index out of range");
        return NULL;
    }
    return PySequence_Fast_GET_ITEM(fast, i);
}

/* Item i of a list or tuple as a C index (a small int). */
static Py_ssize_t index_of(PyObject *fast, Py_ssize_t i) {
    PyObject *x = item(fast, i);
    return x == NULL ? -1 : PyLong_AsSsize_t(x);
}

/* The story's people as family ids, in story order. */
typedef struct {
    Py_ssize_t *ids;
    Py_ssize_t n;
} People;

/* The story index of family id ``person``, as Example._positions gives it (the last match; an
   IndexError when the person is not in the story). */
static Py_ssize_t story_index(const People *people, PyObject *person) {
    Py_ssize_t id = PyLong_AsSsize_t(person);
    if (id == -1 && PyErr_Occurred()) {
        return -1;
    }
    for (Py_ssize_t i = people->n - 1; i >= 0; i--) {
        if (people->ids[i] == id) {
            return i;
        }
    }
    PyErr_SetString(PyExc_IndexError, "a proof fact names someone not in the story");
    return -1;
}

/* A fact over family ids, named: its head's name, its relation word (None when the KB has none for
   the tail's gender) and its tail's name. */
typedef struct {
    PyObject *head, *word, *tail;  /* borrowed */
} Named;

/* t when it is a tuple of n items; NULL with a TypeError saying what it should be otherwise. */
static PyObject *tuple_of(PyObject *t, Py_ssize_t n, const char *what) {
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != n) {
        PyErr_SetString(PyExc_TypeError, what);
        return NULL;
    }
    return t;
}

static int name_fact(PyObject *fact, const People *people, PyObject *names, PyObject *genders, PyObject *flat,
                     Named *named) {
    if (tuple_of(fact, 3, "a fact is a tuple of three ints") == NULL) {
        return -1;
    }
    Py_ssize_t a = story_index(people, PyTuple_GET_ITEM(fact, 0));
    Py_ssize_t b = a < 0 ? -1 : story_index(people, PyTuple_GET_ITEM(fact, 2));
    if (b < 0) {
        return -1;
    }
    Py_ssize_t p = PyLong_AsSsize_t(PyTuple_GET_ITEM(fact, 1));
    Py_ssize_t g = (p == -1 && PyErr_Occurred()) ? -1 : index_of(genders, b);
    if (g == -1 && PyErr_Occurred()) {
        return -1;
    }
    named->head = item(names, a);
    named->tail = named->head == NULL ? NULL : item(names, b);
    named->word = named->tail == NULL ? NULL : item(flat, 2 * p + g);
    return named->word == NULL ? -1 : 0;
}

/* A named fact as the record writes it: [head's name, word, tail's name]. */
static int put_named(PyObject *fact, const People *people, PyObject *names, PyObject *genders, PyObject *flat) {
    Named f;
    int done;
    if ((done = name_fact(fact, people, names, genders, flat, &f)) || (done = PUT_LITERAL("[")) ||
        (done = put_str(f.head)) || (done = PUT_LITERAL(",")) || (done = put_str_or_null(f.word)) ||
        (done = PUT_LITERAL(",")) || (done = put_str(f.tail))) {
        return done;
    }
    return PUT_LITERAL("]");
}

/* The line's arguments, its sequences as lists or tuples, and its people: what the writers of
   list items read. */
enum {
    A_ID, A_SPLIT, A_TASK, A_K, A_NOISE, A_SEED, A_INDEX, A_NAMES, A_GENDERS, A_GENDER_WORDS, A_EDGES, A_WORDS,
    A_PRED_NAMES, A_QUERY, A_TARGET, A_QUERY_PRED, A_PATTERN, A_HELDOUT, A_PROOF, A_PEOPLE, A_FLAT, A_STORY,
    A_CLEAN_PIECES, A_TARGET_PIECE, A_PIECES, N_ARGS
};

/* The sequences among the arguments, each turned into a list or tuple once. */
static const int SEQUENCES[] = {A_NAMES, A_GENDERS, A_GENDER_WORDS, A_EDGES, A_WORDS, A_PRED_NAMES, A_QUERY,
                                A_PROOF, A_PEOPLE, A_FLAT, A_CLEAN_PIECES, A_PIECES};
#define N_SEQUENCES ((int)(sizeof(SEQUENCES) / sizeof(SEQUENCES[0])))

typedef struct {
    PyObject *const *args;
    PyObject **seq; /* by argument, for those in SEQUENCES */
    const People *people;
} Line;

/* Writes item i of a list; ``with`` is what it reads (a Line, or one sequence). */
typedef int (*PutItem)(const void *with, Py_ssize_t i);

static int put_text(const char *text) {
    return put(text, (Py_ssize_t)strlen(text));
}

/* n items between ``open`` and ``close``, ``sep`` between two, each written by ``put_item``. */
static int put_items(Py_ssize_t n, const char *open, const char *sep, const char *close, PutItem put_item,
                     const void *with) {
    int done = put_text(open);
    for (Py_ssize_t i = 0; i < n && done == 0; i++) {
        if (i == 0 || (done = put_text(sep)) == 0) {
            done = put_item(with, i);
        }
    }
    return done ? done : put_text(close);
}

/* The shorter length of two sequences (what zip pairs). */
static Py_ssize_t shorter(PyObject *a, PyObject *b) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(a), m = PySequence_Fast_GET_SIZE(b);
    return n < m ? n : m;
}

/* Item i of a list or tuple of ints, as JSON and repr write it. */
static int put_int_item(const void *fast, Py_ssize_t i) {
    return put_int(PySequence_Fast_GET_ITEM((PyObject *)fast, i));
}

/* The JSON list of a sequence of ints (a piece's edges: a tuple or a range). */
static int put_int_list(PyObject *seq) {
    PyObject *fast = PySequence_Fast(seq, "expected a sequence");
    if (fast == NULL) {
        return -1;
    }
    int done = put_items(PySequence_Fast_GET_SIZE(fast), "[", ",", "]", put_int_item, fast);
    Py_DECREF(fast);
    return done;
}

/* The gender word of story person i. */
static PyObject *gender_word(const Line *line, Py_ssize_t i) {
    Py_ssize_t g = index_of(line->seq[A_GENDERS], i);
    return g == -1 && PyErr_Occurred() ? NULL : item(line->seq[A_GENDER_WORDS], g);
}

static int put_person(const void *with, Py_ssize_t i) {
    const Line *line = with;
    PyObject *word = gender_word(line, i);
    int done;
    if (word == NULL) {
        return -1;
    }
    if ((done = PUT_LITERAL("{\"name\":")) || (done = put_str(PySequence_Fast_GET_ITEM(line->seq[A_NAMES], i))) ||
        (done = PUT_LITERAL(",\"gender\":")) || (done = put_str(word))) {
        return done;
    }
    return PUT_LITERAL("}");
}

/* Story edge i, a tuple (head, predicate, tail, noise kind); NULL with a TypeError otherwise. */
static PyObject *edge_at(PyObject *edges, Py_ssize_t i) {
    return tuple_of(PySequence_Fast_GET_ITEM(edges, i), 4, "an edge is a tuple (head, predicate, tail, noise kind)");
}

static int put_edge(const void *with, Py_ssize_t i) {
    const Line *line = with;
    PyObject *e = edge_at(line->seq[A_EDGES], i);
    if (e == NULL) {
        return -1;
    }
    Py_ssize_t p = PyLong_AsSsize_t(PyTuple_GET_ITEM(e, 1));
    PyObject *pred = p == -1 && PyErr_Occurred() ? NULL : item(line->seq[A_PRED_NAMES], p);
    int done;
    if (pred == NULL) {
        return -1;
    }
    if ((done = PUT_LITERAL("{\"head\":")) || (done = put_int(PyTuple_GET_ITEM(e, 0))) ||
        (done = PUT_LITERAL(",\"tail\":")) || (done = put_int(PyTuple_GET_ITEM(e, 2))) ||
        (done = PUT_LITERAL(",\"relation\":")) || (done = put_str(PySequence_Fast_GET_ITEM(line->seq[A_WORDS], i))) ||
        (done = PUT_LITERAL(",\"predicate\":")) || (done = put_str(pred)) ||
        (done = PUT_LITERAL(",\"noise\":")) || (done = put_str(PyTuple_GET_ITEM(e, 3)))) {
        return done;
    }
    return PUT_LITERAL("}");
}

/* Proof step i, a tuple (goal, fact, fact); NULL with a TypeError otherwise. */
static PyObject *step_at(PyObject *proof, Py_ssize_t i) {
    return tuple_of(PySequence_Fast_GET_ITEM(proof, i), 3, "a proof step is a tuple (goal, fact, fact)");
}

/* The predicate name of a fact (a tuple of three ints, checked). */
static PyObject *fact_predicate(const Line *line, PyObject *fact) {
    if (tuple_of(fact, 3, "a fact is a tuple of three ints") == NULL) {
        return NULL;
    }
    Py_ssize_t p = PyLong_AsSsize_t(PyTuple_GET_ITEM(fact, 1));
    return p == -1 && PyErr_Occurred() ? NULL : item(line->seq[A_PRED_NAMES], p);
}

static int put_step(const void *with, Py_ssize_t i) {
    const Line *line = with;
    PyObject *step = step_at(line->seq[A_PROOF], i);
    if (step == NULL) {
        return -1;
    }
    PyObject *goal = PyTuple_GET_ITEM(step, 0), *f1 = PyTuple_GET_ITEM(step, 1), *f2 = PyTuple_GET_ITEM(step, 2);
    PyObject *r1 = fact_predicate(line, f1), *r2 = r1 == NULL ? NULL : fact_predicate(line, f2);
    PyObject *names = line->seq[A_NAMES], *genders = line->seq[A_GENDERS], *flat = line->seq[A_FLAT];
    int done;
    if (r2 == NULL) {
        return -1;
    }
    if ((done = PUT_LITERAL("{\"goal\":")) || (done = put_named(goal, line->people, names, genders, flat)) ||
        (done = PUT_LITERAL(",\"rule\":[")) || (done = put_str(r1)) || (done = PUT_LITERAL(",")) ||
        (done = put_str(r2)) || (done = PUT_LITERAL("],\"by\":[")) ||
        (done = put_named(f1, line->people, names, genders, flat)) || (done = PUT_LITERAL(",")) ||
        (done = put_named(f2, line->people, names, genders, flat))) {
        return done;
    }
    return PUT_LITERAL("]}");
}

/* A piece's field: a Piece is a tuple (text, template id, edges). */
static PyObject *piece_field(PyObject *piece, Py_ssize_t i) {
    if (!PyTuple_Check(piece) || PyTuple_GET_SIZE(piece) < 3) {
        PyErr_SetString(PyExc_TypeError, "a piece is a tuple (text, template, edges)");
        return NULL;
    }
    return PyTuple_GET_ITEM(piece, i);
}

/* Piece i's text, escaped for JSON (a part of the clean story). */
static int put_escaped_text(const void *pieces, Py_ssize_t i) {
    PyObject *text = piece_field(PySequence_Fast_GET_ITEM((PyObject *)pieces, i), 0);
    return text == NULL ? -1 : put_escaped(text);
}

static int put_piece(const void *pieces, Py_ssize_t i) {
    PyObject *piece = PySequence_Fast_GET_ITEM((PyObject *)pieces, i);
    PyObject *template = piece_field(piece, 1);
    int done;
    if (template == NULL) {
        return -1;
    }
    if ((done = PUT_LITERAL("{\"template\":")) || (done = put_str(template)) || (done = PUT_LITERAL(",\"edges\":")) ||
        (done = put_int_list(PyTuple_GET_ITEM(piece, 2)))) {
        return done;
    }
    return PUT_LITERAL("}");
}

static int put_line(const Line *line) {
    PyObject *const *args = line->args;
    PyObject **seq = line->seq;
    PyObject *query = seq[A_QUERY];
    if (PySequence_Fast_GET_SIZE(query) != 2) {
        PyErr_SetString(PyExc_ValueError, "the query is a pair");
        return -1;
    }
    Py_ssize_t qp = PyLong_AsSsize_t(args[A_QUERY_PRED]);
    PyObject *target_pred = (qp == -1 && PyErr_Occurred()) ? NULL : item(seq[A_PRED_NAMES], qp);
    PyObject *text_target = piece_field(args[A_TARGET_PIECE], 0);
    PyObject *target_template = text_target == NULL ? NULL : piece_field(args[A_TARGET_PIECE], 1);
    if (target_pred == NULL || target_template == NULL) {
        return -1;
    }
    int done;
    (void)((done = PUT_LITERAL("{\"id\":")) || (done = put_str(args[A_ID])) ||
           (done = PUT_LITERAL(",\"split\":")) || (done = put_str(args[A_SPLIT])) ||
           (done = PUT_LITERAL(",\"task\":")) || (done = put_int(args[A_TASK])) ||
           (done = PUT_LITERAL(",\"k\":")) || (done = put_int(args[A_K])) ||
           (done = PUT_LITERAL(",\"noise\":")) || (done = put_str(args[A_NOISE])) ||
           (done = PUT_LITERAL(",\"seed\":")) || (done = put_int(args[A_SEED])) ||
           (done = PUT_LITERAL(",\"index\":")) || (done = put_int(args[A_INDEX])) ||
           (done = put_items(shorter(seq[A_NAMES], seq[A_GENDERS]), ",\"people\":[", ",", "]", put_person, line)) ||
           (done = put_items(shorter(seq[A_EDGES], seq[A_WORDS]), ",\"edges\":[", ",", "]", put_edge, line)) ||
           (done = PUT_LITERAL(",\"query\":")) || (done = put_int_list(query)) ||
           (done = PUT_LITERAL(",\"target\":")) || (done = put_str(args[A_TARGET])) ||
           (done = PUT_LITERAL(",\"target_predicate\":")) || (done = put_str(target_pred)) ||
           (done = PUT_LITERAL(",\"pattern\":")) || (done = put_str(args[A_PATTERN])) ||
           (done = PUT_LITERAL(",\"pattern_heldout\":")) || (done = put_int(args[A_HELDOUT])) ||
           (done = put_items(PySequence_Fast_GET_SIZE(seq[A_PROOF]), ",\"proof\":[", ",", "]", put_step, line)) ||
           (done = PUT_LITERAL(",\"story\":")) || (done = put_str(args[A_STORY])) ||
           (done = put_items(PySequence_Fast_GET_SIZE(seq[A_CLEAN_PIECES]), ",\"clean_story\":\"", " ", "\"",
                             put_escaped_text, seq[A_CLEAN_PIECES])) ||
           (done = PUT_LITERAL(",\"text_target\":[")) || (done = put_str(text_target)) || (done = PUT_LITERAL("]")) ||
           (done = put_items(PySequence_Fast_GET_SIZE(seq[A_PIECES]), ",\"pieces\":[", ",", "]", put_piece,
                             seq[A_PIECES])) ||
           (done = PUT_LITERAL(",\"target_template\":")) || (done = put_str(target_template)) ||
           (done = PUT_LITERAL("}\n")));
    return done;
}

/* ---- the CSV line ---- */

/* A string's UTF-8 bytes as they are (-2 when it has none, the error cleared). */
static int put_utf8(PyObject *text) {
    Py_ssize_t n;
    int status;
    const char *s = utf8_of(text, &n, &status);
    return s == NULL ? status : put(s, n);
}

/* repr(value) for a str or None (Python's own repr: its choice of quotes and escapes). */
static int put_repr(PyObject *value) {
    if (value != Py_None && !PyUnicode_Check(value)) {
        PyErr_Format(PyExc_TypeError, "expected str or None, got %.80s", Py_TYPE(value)->tp_name);
        return -1;
    }
    PyObject *text = PyObject_Repr(value);
    if (text == NULL) {
        return -1;
    }
    int done = put_utf8(text);
    Py_DECREF(text);
    return done;
}

/* Whether any of the 8 bytes of ``w`` makes a CSV cell quoted: a comma, a quote, \n or \r. */
static inline int needs_quotes(uint64_t w) {
    uint64_t comma = w ^ (ONES * ','), quote = w ^ (ONES * '"'), lf = w ^ (ONES * '\n'), cr = w ^ (ONES * '\r');
    return (((comma - ONES) & ~comma) | ((quote - ONES) & ~quote) | ((lf - ONES) & ~lf) | ((cr - ONES) & ~cr)) &
           HIGHS ? 1 : 0;
}

/* Finish the cell written from ``mark``: quoted, its quotes doubled, when it holds a comma, a quote
   or a line break (csv_line's minimal quoting), then the comma or newline after it. */
static int end_cell(Py_ssize_t mark, const char *after) {
    Py_ssize_t i = mark, n = out.len;
    int special = 0;
    while (i + 8 <= n && !special) {
        uint64_t w;
        memcpy(&w, out.data + i, 8);
        if (needs_quotes(w)) {
            special = 1;
        }
        i += 8;
    }
    for (; i < n && !special; i++) {
        char c = out.data[i];
        special = c == ',' || c == '"' || c == '\n' || c == '\r';
    }
    if (special) {
        Py_ssize_t quotes = 0;
        for (i = mark; i < n; i++) {
            quotes += out.data[i] == '"';
        }
        if (reserve(quotes + 2) < 0) {
            return -1;
        }
        Py_ssize_t from = n, to = n + quotes + 2;  /* moved right from the end, quotes doubled on the way */
        out.data[--to] = '"';
        while (from > mark) {
            char c = out.data[--from];
            out.data[--to] = c;
            if (c == '"') {
                out.data[--to] = '"';
            }
        }
        out.data[--to] = '"';
        out.len = n + quotes + 2;
    }
    return put(after, 1);
}

/* A named fact as the original's proof_state holds it: the tuple (head's name, word, tail's name). */
static int put_fact_tuple(PyObject *fact, const Line *line) {
    Named f;
    int done;
    if ((done = name_fact(fact, line->people, line->seq[A_NAMES], line->seq[A_GENDERS], line->seq[A_FLAT], &f)) ||
        (done = PUT_LITERAL("(")) || (done = put_repr(f.head)) || (done = PUT_LITERAL(", ")) ||
        (done = put_repr(f.word)) || (done = PUT_LITERAL(", ")) || (done = put_repr(f.tail))) {
        return done;
    }
    return PUT_LITERAL(")");
}

/* Proof step i as proof_state holds it: {goal: [fact, fact]}. */
static int put_step_repr(const void *with, Py_ssize_t i) {
    const Line *line = with;
    PyObject *step = step_at(line->seq[A_PROOF], i);
    int done;
    if (step == NULL) {
        return -1;
    }
    if ((done = PUT_LITERAL("{")) || (done = put_fact_tuple(PyTuple_GET_ITEM(step, 0), line)) ||
        (done = PUT_LITERAL(": [")) || (done = put_fact_tuple(PyTuple_GET_ITEM(step, 1), line)) ||
        (done = PUT_LITERAL(", ")) || (done = put_fact_tuple(PyTuple_GET_ITEM(step, 2), line))) {
        return done;
    }
    return PUT_LITERAL("]}");
}

/* Story edge i's (head, tail) pair, as repr writes it. */
static int put_edge_pair(const void *edges, Py_ssize_t i) {
    PyObject *e = edge_at((PyObject *)edges, i);
    int done;
    if (e == NULL) {
        return -1;
    }
    if ((done = PUT_LITERAL("(")) || (done = put_int(PyTuple_GET_ITEM(e, 0))) || (done = PUT_LITERAL(", ")) ||
        (done = put_int(PyTuple_GET_ITEM(e, 2)))) {
        return done;
    }
    return PUT_LITERAL(")");
}

/* Item i of a list or tuple of strings, as repr writes it. */
static int put_repr_item(const void *fast, Py_ssize_t i) {
    return put_repr(PySequence_Fast_GET_ITEM((PyObject *)fast, i));
}

/* Piece i's text as it is (a part of the clean story's cell). */
static int put_utf8_text(const void *pieces, Py_ssize_t i) {
    PyObject *text = piece_field(PySequence_Fast_GET_ITEM((PyObject *)pieces, i), 0);
    return text == NULL ? -1 : put_utf8(text);
}

/* Story person i as the genders cell writes it: name:gender. */
static int put_name_gender(const void *with, Py_ssize_t i) {
    const Line *line = with;
    PyObject *word = gender_word(line, i);
    int done;
    if (word == NULL) {
        return -1;
    }
    if ((done = put_utf8(PySequence_Fast_GET_ITEM(line->seq[A_NAMES], i))) || (done = PUT_LITERAL(":"))) {
        return done;
    }
    return put_utf8(word);
}

/* Story person i's entry of node_mapping, as repr writes it: family id: story index. People are
   distinct in every story (the generator checks it), so the dict has one entry each, in order. */
static int put_node_entry(const void *people, Py_ssize_t i) {
    char digits[48];  /* two 64-bit ints in decimal, signs and ": " */
    int len = snprintf(digits, sizeof(digits), "%zd: %zd", ((const People *)people)->ids[i], i);
    return put(digits, len);
}

/* The CSV line: index, then csv_columns() of an example asking for a relation. */
static int put_csv_line(PyObject *csv_index, const Line *line) {
    PyObject *const *args = line->args;
    PyObject **seq = line->seq;
    PyObject *query = seq[A_QUERY], *names = seq[A_NAMES];
    if (PySequence_Fast_GET_SIZE(query) != 2) {
        PyErr_SetString(PyExc_ValueError, "the query is a pair");
        return -1;
    }
    Py_ssize_t qa = PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(query, 0));
    Py_ssize_t qb = (qa == -1 && PyErr_Occurred()) ? -1 : PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(query, 1));
    if (qb == -1 && PyErr_Occurred()) {
        return -1;
    }
    PyObject *head = item(names, qa), *tail = head == NULL ? NULL : item(names, qb);
    PyObject *text_target = tail == NULL ? NULL : piece_field(args[A_TARGET_PIECE], 0);
    if (text_target == NULL) {
        return -1;
    }
    Py_ssize_t m;
    int done;
    (void)((done = put_int(csv_index)) || (done = PUT_LITERAL(",")) ||
           (m = out.len, (done = put_utf8(args[A_ID])) || (done = end_cell(m, ","))) ||
           (m = out.len, (done = put_utf8(args[A_STORY])) || (done = end_cell(m, ","))) ||
           (m = out.len, (done = PUT_LITERAL("(")) || (done = put_repr(head)) || (done = PUT_LITERAL(", ")) ||
            (done = put_repr(tail)) || (done = PUT_LITERAL(")")) || (done = end_cell(m, ","))) ||
           (done = PUT_LITERAL(",")) ||  /* text_query: empty */
           (m = out.len, (done = put_utf8(args[A_TARGET])) || (done = end_cell(m, ","))) ||
           (m = out.len, (done = PUT_LITERAL("[")) || (done = put_repr(text_target)) || (done = PUT_LITERAL("]")) ||
            (done = end_cell(m, ","))) ||
           (m = out.len, (done = put_items(PySequence_Fast_GET_SIZE(seq[A_CLEAN_PIECES]), "", " ", "", put_utf8_text,
                                           seq[A_CLEAN_PIECES])) || (done = end_cell(m, ","))) ||
           (m = out.len, (done = put_items(PySequence_Fast_GET_SIZE(seq[A_PROOF]), "[", ", ", "]", put_step_repr,
                                           line)) || (done = end_cell(m, ","))) ||
           (m = out.len, (done = put_utf8(args[A_PATTERN])) || (done = end_cell(m, ","))) ||
           (m = out.len, (done = PUT_LITERAL("task_")) || (done = put_int(args[A_TASK])) ||
            (done = PUT_LITERAL(".")) || (done = put_int(args[A_K])) || (done = end_cell(m, ","))) ||
           (m = out.len, (done = put_items(PySequence_Fast_GET_SIZE(seq[A_EDGES]), "[", ", ", "]", put_edge_pair,
                                           seq[A_EDGES])) || (done = end_cell(m, ","))) ||
           (m = out.len, (done = put_items(PySequence_Fast_GET_SIZE(seq[A_WORDS]), "[", ", ", "]", put_repr_item,
                                           seq[A_WORDS])) || (done = end_cell(m, ","))) ||
           (m = out.len, (done = put_items(2, "(", ", ", ")", put_int_item, query)) || (done = end_cell(m, ","))) ||
           (m = out.len, (done = put_items(shorter(names, seq[A_GENDERS]), "", ",", "", put_name_gender, line)) ||
            (done = end_cell(m, ","))) ||
           (done = PUT_LITERAL(",")) ||  /* syn_story: empty */
           (m = out.len, (done = put_items(line->people->n, "{", ", ", "}", put_node_entry, line->people)) ||
            (done = end_cell(m, ","))) ||
           (m = out.len, (done = put_utf8(args[A_SPLIT])) || (done = end_cell(m, "\n"))));
    return done;
}

/* The bytes of the line put_line or put_csv_line writes, None for text without a UTF-8 form, or
   NULL on an error. */
static PyObject *finished(int written) {
    if (written == 0) {
        return PyBytes_FromStringAndSize(out.data, out.len);
    }
    return written == -2 ? Py_NewRef(Py_None) : NULL;
}

/* example_lines(want_json, csv_index, *ARGS): (JSONL line or None, CSV line or None). */
static PyObject *example_lines(PyObject *module, PyObject *const *all, Py_ssize_t nargs) {
    (void)module;
    if (nargs != N_ARGS + 2) {
        PyErr_Format(PyExc_TypeError, "example_lines takes %d arguments (%zd given)", N_ARGS + 2, nargs);
        return NULL;
    }
    int want_json = PyObject_IsTrue(all[0]);
    if (want_json < 0) {
        return NULL;
    }
    PyObject *csv_index = all[1];
    PyObject *const *args = all + 2;
    PyObject *seq[N_ARGS] = {NULL};
    PyObject *json = NULL, *csv = NULL, *lines = NULL;
    Py_ssize_t few[64];
    People people = {few, 0};
    Py_ssize_t i;
    for (i = 0; i < N_SEQUENCES; i++) {
        seq[SEQUENCES[i]] = PySequence_Fast(args[SEQUENCES[i]], "expected a sequence");
        if (seq[SEQUENCES[i]] == NULL) {
            goto done;
        }
    }
    people.n = PySequence_Fast_GET_SIZE(seq[A_PEOPLE]);
    if (people.n > 64 && (people.ids = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)people.n)) == NULL) {
        people.ids = few;
        PyErr_NoMemory();
        goto done;
    }
    for (i = 0; i < people.n; i++) {
        people.ids[i] = PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(seq[A_PEOPLE], i));
        if (people.ids[i] == -1 && PyErr_Occurred()) {
            goto done;
        }
    }
    Line line = {args, seq, &people};
    if (want_json) {
        out.len = 0;
        if ((json = finished(put_line(&line))) == NULL) {
            goto done;
        }
    } else {
        json = Py_NewRef(Py_None);
    }
    if (csv_index != Py_None) {
        out.len = 0;
        if ((csv = finished(put_csv_line(csv_index, &line))) == NULL) {
            goto done;
        }
    } else {
        csv = Py_NewRef(Py_None);
    }
    lines = PyTuple_Pack(2, json, csv);
done:
    Py_XDECREF(json);
    Py_XDECREF(csv);
    if (people.ids != few) {
        PyMem_Free(people.ids);
    }
    for (i = 0; i < N_SEQUENCES; i++) {
        Py_XDECREF(seq[SEQUENCES[i]]);
    }
    return lines;
}

static PyMethodDef methods[] = {
    {"example_lines", (PyCFunction)(void (*)(void))example_lines, METH_FASTCALL,
     "example_lines(want_json, csv_index, id, split, task, k, noise, seed, index, names, genders, gender_words,\n"
     "edges, words, pred_names, query, target, query_pred, pattern, heldout, proof, people, words_flat, story,\n"
     "clean_pieces, target_piece, pieces) -> (bytes or None, bytes or None)\n\n"
     "A common example's JSONL line (when want_json) and CSV line with index csv_index (unless it is None):\n"
     "see clutrr.io.rows.example_lines. A line whose text has no UTF-8 form is None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_lines", "A common example's JSONL and CSV lines, written in C.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__lines(void) {
    return PyModule_Create(&module_def);
}
