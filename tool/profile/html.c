/* The HTML report: one self-contained page of a run or of a run store, with its scripts,
 * styles and data inlined so that it opens from disk with no network request. The scripts
 * are real files in tool/profile/html/, embedded at build time (embed.py, html_assets.h);
 * this file only writes a page around a JSON document. */
#include "profile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "html_assets.h"

/* s as HTML text (for the title). */
static void add_text(struct strbuf *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': sb_puts(out, "&lt;"); break;
        case '>': sb_puts(out, "&gt;"); break;
        case '&': sb_puts(out, "&amp;"); break;
        case '"': sb_puts(out, "&quot;"); break;
        default: sb_add(out, s, 1);
        }
    }
}

/* JSON inside <script type="application/json">: every '<' becomes \u003c, so that no
 * "</script" or "<!--" in a name can end the element. JSON has '<' only inside strings, where
 * the escape reads back as the same character. */
static void add_json(struct strbuf *out, const char *json)
{
    for (const char *s = json; *s;) {
        size_t n = strcspn(s, "<");
        sb_add(out, s, n);
        s += n;
        if (*s) {
            sb_puts(out, "\\u003c");
            s++;
        }
    }
}

/* A library's script element, its license as the comment it opens with. */
static void add_library(struct strbuf *out, const char *name, const char *license,
                        const char *code)
{
    sb_printf(out, "<script>/*! %s, inlined by tardy with its license:\n", name);
    sb_puts(out, license);
    sb_puts(out, "*/\n");
    sb_puts(out, code);
    sb_puts(out, "\n</script>\n");
}

void html_page(struct strbuf *out, const char *view, const char *title, const char *json)
{
    sb_puts(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                 "<meta name=\"generator\" content=\"tardy " TARDY_VERSION "\">\n<title>");
    add_text(out, title);
    sb_puts(out, "</title>\n<style>\n");
    sb_puts(out, html_page_css);
    sb_printf(out, "</style>\n</head>\n<body>\n<div id=\"app\" data-view=\"%s\">"
                   "<p>This report is drawn by its scripts: allow JavaScript for this file."
                   "</p></div>\n<script type=\"application/json\" id=\"tardy-data\">",
              view);
    add_json(out, json);
    sb_puts(out, "</script>\n");
    add_library(out, "d3 5.16.0 (Debian node-d3)", html_license_d3, html_d3);
    add_library(out, "d3-sankey 0.12.3 (npm)", html_license_d3_sankey, html_d3_sankey);
    sb_puts(out, "<script>\n");
    sb_puts(out, html_common_js);
    if (!strcmp(view, "store")) {
        sb_puts(out, html_store_js);
    } else {
        sb_puts(out, html_names_js);
        sb_puts(out, !strcmp(view, "diff") ? html_diff_js : html_run_js);
    }
    sb_puts(out, "\n</script>\n</body>\n</html>\n");
}

char *profile_to_html(struct profile *p)
{
    char *json = profile_to_page_json(p);
    if (!json)
        return NULL;
    const char *program = p->program ? p->program : "?";
    const char *base = strrchr(program, '/');
    char title[512];
    snprintf(title, sizeof title, "tardy: %s on %d rank%s", base ? base + 1 : program,
             p->ranks, p->ranks == 1 ? "" : "s");
    struct strbuf page;
    sb_init(&page);
    html_page(&page, "run", title, json);
    free(json);
    if (page.failed)
        sb_free(&page);
    return page.data;
}

char *html_path_of(const char *json_path)
{
    size_t n = strlen(json_path);
    if (n > 5 && !strcmp(json_path + n - 5, ".json"))
        n -= 5;
    char *path = malloc(n + 6);
    if (path) {
        memcpy(path, json_path, n);
        strcpy(path + n, ".html");
    }
    return path;
}

int html_write(const char *path, const char *text, int exclusive, char *err, size_t errlen)
{
    int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (exclusive ? O_EXCL : O_TRUNC);
    int fd = open(path, flags, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    int failed = fd_write_all(fd, text, strlen(text)) < 0;
    if (close(fd) != 0 || failed) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        unlink(path);
        return -1;
    }
    return 0;
}

int profile_write_html(struct profile *p, char *err, size_t errlen)
{
    if (!p->path) {
        snprintf(err, errlen, "no JSON profile was written (TARDY_PROFILE=none), so there is "
                              "no name to write the report next to");
        return -1;
    }
    char *path = html_path_of(p->path), *page = profile_to_html(p);
    int rc = -1;
    if (!path || !page)
        snprintf(err, errlen, "out of memory while building the HTML report");
    else
        rc = html_write(path, page, 1, err, errlen);
    free(path);
    free(page);
    return rc;
}
