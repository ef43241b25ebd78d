/* Call paths in tardy's JSON documents, written (version 2): every string once, in three
 * tables: "files" (names), "frames" ([function, file id, line]) and "callpaths" (lists of
 * frame ids, innermost first), a call site being {"function", "callpath": id}. The profile's
 * reader (profile_read.c) turns them back into "function file:line;..." by id, from these
 * tables or version 1's {"id", "frames": [{"function", "file", "line"}]}. */
#include "profile_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- writing ----------------------------------------------------------------------------- */

/* Splits the frame "function file:line" of len bytes into its parts (file "??" and line 0
 * when it names no file); *fn is malloc'd and holds the file part too. */
static int frame_parts(const char *text, size_t len, char **fn, const char **file, int *line)
{
    char *frame = strndup(text, len);
    if (!frame)
        return -1;
    char *sp = (char *)frame_file_space(frame, len), *colon = strrchr(frame, ':');
    *fn = frame;
    if (sp && colon && colon > sp) {
        *sp = *colon = '\0';
        *file = sp + 1;
        *line = atoi(colon + 1);
    } else {
        *file = "??";
        *line = 0;
    }
    return 0;
}

json_t *pj_frame(const char *text, size_t len)
{
    char *fn;
    const char *file;
    int line;
    if (frame_parts(text, len, &fn, &file, &line) < 0)
        return NULL;
    json_t *o = json_pack("{s:s,s:s,s:i}", "function", fn, "file", file, "line", line);
    free(fn);
    return o;
}

void pj_paths_init(struct pj_paths *t)
{
    t->files = json_array();
    t->frames = json_array();
    t->callpaths = json_array();
    t->ids = json_object();
}

/* The id of key ("kind\ttext") in table, appending make() when it is new. */
static int intern(struct pj_paths *t, json_t *table, const char *kind, const char *text,
                  json_t *(*make)(struct pj_paths *, const char *), struct strbuf *key)
{
    key->len = 0;
    sb_printf(key, "%s\t%s", kind, text);
    json_t *id = json_object_get(t->ids, key->data ? key->data : "");
    if (id)
        return (int)json_integer_value(id);
    int n = (int)json_array_size(table);
    json_array_append_new(table, make(t, text));
    json_object_set_new(t->ids, key->data ? key->data : "", json_integer(n));
    return n;
}

static json_t *make_file(struct pj_paths *t, const char *file)
{
    (void)t;
    return json_string(file);
}

static json_t *make_frame(struct pj_paths *t, const char *frame)
{
    char *fn;
    const char *file;
    int line;
    struct strbuf key;
    if (frame_parts(frame, strlen(frame), &fn, &file, &line) < 0)
        return json_null();
    sb_init(&key);
    json_t *o = json_pack("[s,i,i]", fn, intern(t, t->files, "file", file, make_file, &key),
                          line);
    sb_free(&key);
    free(fn);
    return o;
}

static json_t *make_path(struct pj_paths *t, const char *frames)
{
    json_t *ids = json_array();
    struct strbuf key, one;
    sb_init(&key);
    sb_init(&one);
    for (const char *s = frames; *s;) {
        const char *end = strchr(s, ';');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        one.len = 0;
        sb_add(&one, s, len);
        json_array_append_new(ids, json_integer(intern(t, t->frames, "frame",
                                                       one.data ? one.data : "", make_frame,
                                                       &key)));
        s += len + (end ? 1 : 0);
    }
    sb_free(&key);
    sb_free(&one);
    return ids;
}

json_t *pj_site(struct pj_paths *t, const char *site)
{
    char fn[128];
    size_t len = site_function_len(site);
    snprintf(fn, sizeof fn, "%.*s", (int)(len < sizeof fn ? len : sizeof fn - 1), site);
    struct strbuf key;
    sb_init(&key);
    int id = intern(t, t->callpaths, "path", site_frames(site), make_path, &key);
    sb_free(&key);
    return json_pack("{s:s,s:i}", "function", fn, "callpath", id);
}

void pj_paths_put(struct pj_paths *t, json_t *doc)
{
    json_object_set_new(doc, "files", t->files);
    json_object_set_new(doc, "frames", t->frames);
    json_object_set_new(doc, "callpaths", t->callpaths);
    json_decref(t->ids);
    t->files = t->frames = t->callpaths = t->ids = NULL;
}
