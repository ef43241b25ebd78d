/* cli/json_chunks.c: jansson's and cJSON's values from chunks in the `tardy` command.
 * Documents freed in any order leave the others intact, a value larger than a chunk's share
 * has its own block, json_text's result is the caller's to free(), and reading two hundred
 * documents one after another holds the memory of one, not of two hundred. */
#include <cJSON.h>
#include <jansson.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli/json_chunks.h"
#include "tool/profile/profile.h"

/* A document of n rows like a profile's: {"rows": [{"name": "row k", "v": [k, k/2]}, ...]}. */
static json_t *rows_doc(int n, int tag)
{
    char text[64];
    json_t *rows = json_array();
    for (int k = 0; k < n; k++) {
        snprintf(text, sizeof text, "row %d of %d", k, tag);
        json_array_append_new(rows, json_pack("{s:s,s:[i,f]}", "name", text, "v", k, k / 2.0));
    }
    return json_pack("{s:o,s:i}", "rows", rows, "tag", tag);
}

static int intact(json_t *doc, int n, int tag)
{
    json_t *rows = json_object_get(doc, "rows");
    char text[64];
    if (json_integer_value(json_object_get(doc, "tag")) != tag || (int)json_array_size(rows) != n)
        return 0;
    for (int k = 0; k < n; k++) {
        json_t *row = json_array_get(rows, (size_t)k);
        snprintf(text, sizeof text, "row %d of %d", k, tag);
        if (strcmp(json_string_value(json_object_get(row, "name")), text) ||
            json_integer_value(json_array_get(json_object_get(row, "v"), 0)) != k)
            return 0;
    }
    return 1;
}

/* A string of 4 MiB (more than a chunk) and text parsed back. */
static void large_and_text(void)
{
    size_t n = (size_t)4 << 20;
    char *big = malloc(n + 1);
    CHECK(big != NULL);
    memset(big, 'x', n);
    big[n] = '\0';
    json_t *doc = json_pack("{s:s,s:o}", "big", big, "rows", json_array());
    char *text = json_text(doc, JSON_COMPACT);
    CHECK(text != NULL && strlen(text) == n + 20);
    json_error_t je;
    json_t *back = json_loads(text, 0, &je);
    CHECK(back && strlen(json_string_value(json_object_get(back, "big"))) == n);
    free(text); /* malloc's memory, whatever jansson allocates with */
    json_decref(back);
    json_decref(doc);
    free(big);
}

/* The text of rows_doc(n, tag) parsed by cJSON (as profiles are read back). */
static cJSON *parsed(int n, int tag)
{
    json_t *doc = rows_doc(n, tag);
    char *text = json_text(doc, JSON_COMPACT);
    json_decref(doc);
    cJSON *back = text ? cJSON_Parse(text) : NULL;
    free(text);
    return back;
}

static int parsed_intact(const cJSON *doc, int n, int tag)
{
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(doc, "rows"), *row;
    char text[64];
    int k = 0;
    if (cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(doc, "tag")) != tag)
        return 0;
    cJSON_ArrayForEach(row, rows) {
        snprintf(text, sizeof text, "row %d of %d", k, tag);
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "name"));
        if (!name || strcmp(name, text) ||
            cJSON_GetNumberValue(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(row, "v"),
                                                    0)) != k)
            return 0;
        k++;
    }
    return k == n;
}

/* jansson's documents and cJSON's trees (profiles are read back with cJSON), alike. */
struct library {
    void *(*make)(int n, int tag);
    int (*intact)(const void *doc, int n, int tag);
    void (*release)(void *doc);
};
static void *jansson_make(int n, int tag) { return rows_doc(n, tag); }
static int jansson_intact(const void *doc, int n, int tag) { return intact((json_t *)doc, n, tag); }
static void jansson_release(void *doc) { json_decref(doc); }
static void *cjson_make(int n, int tag) { return parsed(n, tag); }
static int cjson_intact(const void *doc, int n, int tag) { return parsed_intact(doc, n, tag); }
static void cjson_release(void *doc) { cJSON_Delete(doc); }
static const struct library JANSSON = {jansson_make, jansson_intact, jansson_release};
static const struct library CJSON = {cjson_make, cjson_intact, cjson_release};

/* Documents of several chunks each, freed out of the order they were made in. */
static void lifetimes(const struct library *lib)
{
    void *a = lib->make(20000, 1), *b = lib->make(20000, 2);
    lib->release(a);
    void *c = lib->make(20000, 3);
    CHECK(lib->intact(b, 20000, 2));
    lib->release(b);
    CHECK(lib->intact(c, 20000, 3));
    lib->release(c);
}

/* Two hundred documents of up to 1 MiB of values, one alive at a time. */
static void bounded(const struct library *lib)
{
    lib->release(lib->make(10, 0));
    size_t before = mallinfo2().uordblks, most = 0;
    for (int i = 0; i < 200; i++) {
        void *doc = lib->make(i % 2 ? 5000 : 1000, i);
        size_t used = mallinfo2().uordblks;
        most = used > most ? used : most;
        lib->release(doc);
    }
    size_t after = mallinfo2().uordblks;
    CHECK(most - before < (size_t)16 << 20);
    CHECK(after - before <= (size_t)2 << 20); /* at most the chunk in use */
}

int main(void)
{
    json_chunks_use();
    lifetimes(&JANSSON);
    lifetimes(&CJSON);
    large_and_text();
    bounded(&JANSSON);
    bounded(&CJSON);
    CHECK_DONE();
}
