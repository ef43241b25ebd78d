/* For the tests only: MPI_T events where the MPI library has none (no library here does:
 * Debian's MPICH and the QMPI build have 0, Open MPI 4.1 predates them). Preloaded in front of
 * tardy, it provides the PMPI_T_event_* functions tardy calls, with three events, and fires
 * them a known number of times: "fake_barrier" twice inside every PMPI_Barrier,
 * "fake_send" once inside every PMPI_Send (before the library's own call), and
 * "fake_outside" three times, outside any MPI call of the program, when a callback is
 * registered for it. Everything else goes to the MPI library. Where MPICH has QMPI it is also
 * the QMPI tool "fakeev": listed behind tardy it gets tardy's own MPI_T calls and the
 * program's barriers and sends from tardy's slot, and then fires there instead. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#if MPI_VERSION >= 4
enum { BARRIER, SEND, OUTSIDE, NEVENTS };
static const char *const names[NEVENTS] = {"fake_barrier", "fake_send", "fake_outside"};
static const int fires[NEVENTS] = {2, 1, 3};

/* A registration is a pointer to one of these (tardy only hands it back). */
static struct fake_reg {
    int index, allocated;
    MPI_T_event_cb_function *cb;
    void *user_data;
} regs[NEVENTS];

static void fire(int index)
{
    struct fake_reg *r = &regs[index];
    for (int i = 0; r->allocated && r->cb && i < fires[index]; i++)
        r->cb((MPI_T_event_instance)r, (MPI_T_event_registration)r, MPI_T_CB_REQUIRE_NONE,
              r->user_data);
}

static int qmpi_active; /* activated as a QMPI tool: the QMPI functions below fire */

int PMPI_T_event_get_num(int *num_events)
{
    *num_events = NEVENTS;
    return MPI_SUCCESS;
}

int PMPI_T_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
                          MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],
                          int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc,
                          int *desc_len, int *bind)
{
    (void)array_of_datatypes, (void)array_of_displacements;
    if (event_index < 0 || event_index >= NEVENTS)
        return MPI_T_ERR_INVALID_INDEX;
    snprintf(name, (size_t)*name_len, "%s", names[event_index]);
    *name_len = (int)strlen(names[event_index]) + 1;
    snprintf(desc, (size_t)*desc_len, "test event");
    *desc_len = (int)strlen("test event") + 1;
    *verbosity = MPI_T_VERBOSITY_USER_BASIC;
    *num_elements = 0;
    *enumtype = MPI_T_ENUM_NULL;
    *bind = MPI_T_BIND_NO_OBJECT;
    if (info)
        *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}

int PMPI_T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
                              MPI_T_event_registration *event_registration)
{
    (void)obj_handle, (void)info;
    if (event_index < 0 || event_index >= NEVENTS)
        return MPI_T_ERR_INVALID_INDEX;
    regs[event_index] = (struct fake_reg){.index = event_index, .allocated = 1};
    *event_registration = (MPI_T_event_registration)&regs[event_index];
    return MPI_SUCCESS;
}

int PMPI_T_event_register_callback(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info, void *user_data,
                                   MPI_T_event_cb_function event_cb_function)
{
    (void)cb_safety, (void)info;
    struct fake_reg *r = (struct fake_reg *)event_registration;
    r->cb = event_cb_function;
    r->user_data = user_data;
    if (r->index == OUTSIDE)
        fire(OUTSIDE);
    return MPI_SUCCESS;
}

int PMPI_T_event_handle_free(MPI_T_event_registration event_registration, void *user_data,
                             MPI_T_event_free_cb_function free_cb_function)
{
    struct fake_reg *r = (struct fake_reg *)event_registration;
    r->allocated = 0;
    if (free_cb_function)
        free_cb_function(event_registration, MPI_T_CB_REQUIRE_NONE, user_data);
    return MPI_SUCCESS;
}

int PMPI_Barrier(MPI_Comm comm)
{
    static int (*next)(MPI_Comm);
    if (!next)
        next = (int (*)(MPI_Comm))dlsym(RTLD_NEXT, "PMPI_Barrier");
    if (!qmpi_active)
        fire(BARRIER);
    return next(comm);
}

int PMPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    static int (*next)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
    if (!next)
        next = (int (*)(const void *, int, MPI_Datatype, int, int, MPI_Comm))dlsym(
            RTLD_NEXT, "PMPI_Send");
    if (!qmpi_active)
        fire(SEND);
    return next(buf, count, type, dest, tag, comm);
}

#ifdef QMPI_MAX_TOOL_NAME_LENGTH
/* The same, as a QMPI tool: the MPI_T functions answer for the library, the barrier and the
 * send fire and go on to the next tool. */
static int q_get_num(QMPI_Context c, int t, int *num)
{
    (void)c, (void)t;
    return PMPI_T_event_get_num(num);
}

static int q_get_info(QMPI_Context c, int t, int event_index, char *name, int *name_len,
                      int *verbosity, MPI_Datatype types[], MPI_Aint displs[], int *num_elements,
                      MPI_T_enum *enumtype, MPI_Info *info, char *desc, int *desc_len, int *bind)
{
    (void)c, (void)t;
    return PMPI_T_event_get_info(event_index, name, name_len, verbosity, types, displs,
                                 num_elements, enumtype, info, desc, desc_len, bind);
}

static int q_handle_alloc(QMPI_Context c, int t, int event_index, void *obj, MPI_Info info,
                          MPI_T_event_registration *reg)
{
    (void)c, (void)t;
    return PMPI_T_event_handle_alloc(event_index, obj, info, reg);
}

static int q_register(QMPI_Context c, int t, MPI_T_event_registration reg,
                      MPI_T_cb_safety safety, MPI_Info info, void *user_data,
                      MPI_T_event_cb_function cb)
{
    (void)c, (void)t;
    return PMPI_T_event_register_callback(reg, safety, info, user_data, cb);
}

static int q_handle_free(QMPI_Context c, int t, MPI_T_event_registration reg, void *user_data,
                         MPI_T_event_free_cb_function free_cb)
{
    (void)c, (void)t;
    return PMPI_T_event_handle_free(reg, user_data, free_cb);
}

static int q_barrier(QMPI_Context c, int t, MPI_Comm comm)
{
    QMPI_Barrier_t *next;
    int id;
    QMPI_Get_function(t, MPI_BARRIER_T, (void (**)(void))&next, &id);
    fire(BARRIER);
    return next(c, id, comm);
}

static int q_send(QMPI_Context c, int t, const void *buf, int count, MPI_Datatype type,
                  int dest, int tag, MPI_Comm comm)
{
    QMPI_Send_t *next;
    int id;
    QMPI_Get_function(t, MPI_SEND_T, (void (**)(void))&next, &id);
    fire(SEND);
    return next(c, id, buf, count, type, dest, tag, comm);
}

static void q_init(int t)
{
    QMPI_Register_function(t, MPI_T_EVENT_GET_NUM_T, (void (*)(void))q_get_num);
    QMPI_Register_function(t, MPI_T_EVENT_GET_INFO_T, (void (*)(void))q_get_info);
    QMPI_Register_function(t, MPI_T_EVENT_HANDLE_ALLOC_T, (void (*)(void))q_handle_alloc);
    QMPI_Register_function(t, MPI_T_EVENT_REGISTER_CALLBACK_T, (void (*)(void))q_register);
    QMPI_Register_function(t, MPI_T_EVENT_HANDLE_FREE_T, (void (*)(void))q_handle_free);
    QMPI_Register_function(t, MPI_BARRIER_T, (void (*)(void))q_barrier);
    QMPI_Register_function(t, MPI_SEND_T, (void (*)(void))q_send);
    qmpi_active = 1;
}

__attribute__((constructor)) static void q_load(void)
{
    QMPI_Register_tool_name("fakeev", q_init);
}
#endif
#endif
