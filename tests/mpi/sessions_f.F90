! sessions.c in Fortran: an MPI 4 program of the sessions model alone (no MPI_Init), a
! communicator of every process from the group of "mpi://WORLD", one Allreduce on it. Prints
! "ok N" (N processes) on the first process; "no sessions" per process where mpi.h predates
! MPI 4 (tests/tests.mk defines MPI4 otherwise). Built twice (tests/tests.mk): `use mpi` as
! sessions_f, and with -DF08 `use mpi_f08` as sessions_f_f08; each binding reaches the
! library's MPI_Session_init by its own path.
program sessions_f
#ifndef MPI4
  print '(a)', 'no sessions'
#else
#ifdef F08
  use mpi_f08
  implicit none
  type(MPI_Session) :: s
  type(MPI_Group) :: g
  type(MPI_Comm) :: c
#else
  use mpi
  implicit none
  integer :: s, g, c
#endif
  integer :: ierr, one, n, rank
  one = 1
  n = 0
  call MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, s, ierr)
  call MPI_Group_from_session_pset(s, "mpi://WORLD", g, ierr)
  call MPI_Comm_create_from_group(g, "tardy.tests.sessions_f", MPI_INFO_NULL, &
                                  MPI_ERRORS_RETURN, c, ierr)
  call MPI_Allreduce(one, n, 1, MPI_INTEGER, MPI_SUM, c, ierr)
  call MPI_Comm_rank(c, rank, ierr)
  if (rank == 0) print '(a,i0)', 'ok ', n
  call MPI_Comm_free(c, ierr)
  call MPI_Group_free(g, ierr)
  call MPI_Session_finalize(s, ierr)
#endif
end program sessions_f
