/* Comma-separated glob lists with exclusions, matched with fnmatch. */
#include "base.h"

#include <fnmatch.h>
#include <string.h>

int gl_match(const char *patterns, const char *name)
{
    char pat[256];
    int yes = 0;
    for (const char *s = patterns; *s;) {
        size_t len = strcspn(s, ",");
        if (len && len < sizeof pat) {
            memcpy(pat, s, len);
            pat[len] = '\0';
            int neg = pat[0] == '!';
            if (!fnmatch(pat + neg, name, FNM_CASEFOLD)) {
                if (neg)
                    return 0;
                yes = 1;
            }
        }
        s += len + (s[len] == ',');
    }
    return yes;
}
