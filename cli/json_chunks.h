/* jansson's and cJSON's allocations in the `tardy` command from chunks (json_chunks.c). */
#ifndef TARDY_CLI_JSON_CHUNKS_H
#define TARDY_CLI_JSON_CHUNKS_H

/* Before the command's first JSON value. */
void json_chunks_use(void);

#endif
