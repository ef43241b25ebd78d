/* UCX's memory hooks (UCM) patch the first mmap/munmap/mremap/shmat/shmdt the dynamic linker
 * finds -- tardy's -- with a jump to their own code, which then makes the system call itself:
 * after ucp_init (inside MPI_Init) tardy's interposers never run again. UCM reports every such
 * call as an event; this file listens (without asking UCM to install anything) and charges
 * them like the interposers would. Events from inside tardy's interposers are skipped. */
#include "memory_int.h"

#include <dlfcn.h>
#include <sys/mman.h>

#if __has_include(<ucm/api/ucm.h>)
#include <ucm/api/ucm.h>

/* Before the real call: releases (so that the address is not reused before we forget it). */
static void before(ucm_event_type_t type, ucm_event_t *e, void *arg)
{
    (void)arg;
    if (mem_in_map())
        return;
    if (type == UCM_EVENT_MUNMAP)
        mem_unmap(e->munmap.address, e->munmap.size);
    else if (type == UCM_EVENT_MREMAP)
        mem_release(e->mremap.address);
    else if (type == UCM_EVENT_SHMDT)
        mem_release(e->shmdt.shmaddr);
}

/* After the real call: new mappings. */
static void after(ucm_event_type_t type, ucm_event_t *e, void *arg)
{
    (void)arg;
    if (mem_in_map())
        return;
    if (type == UCM_EVENT_MMAP && (e->mmap.flags & MAP_ANONYMOUS) && e->mmap.result != MAP_FAILED)
        mem_charge_map(e->mmap.result, e->mmap.size);
    else if (type == UCM_EVENT_MREMAP && e->mremap.result != MAP_FAILED)
        mem_charge_map(e->mremap.result, e->mremap.new_size);
    else if (type == UCM_EVENT_SHMAT)
        mem_charge_shm(e->shmat.result, e->shmat.shmid);
}

void mem_ucm_attach(void)
{
    ucs_status_t (*set)(int, int, ucm_event_callback_t, void *) =
        (ucs_status_t(*)(int, int, ucm_event_callback_t, void *))dlsym(RTLD_DEFAULT,
                                                                      "ucm_set_event_handler");
    if (!set)
        return; /* no UCX in this process */
    set(UCM_EVENT_MUNMAP | UCM_EVENT_MREMAP | UCM_EVENT_SHMDT | UCM_EVENT_FLAG_NO_INSTALL, -1,
        before, NULL);
    set(UCM_EVENT_MMAP | UCM_EVENT_MREMAP | UCM_EVENT_SHMAT | UCM_EVENT_FLAG_NO_INSTALL, 1000,
        after, NULL);
}

#else

void mem_ucm_attach(void)
{
}

#endif
