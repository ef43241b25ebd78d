! A Fortran job that aborts (issue 17): every rank runs 1,000 MPI_Allreduce calls, then rank 1
! calls MPI_Abort(MPI_COMM_WORLD, CODE) (CODE: the first argument, 3 without one). Built twice
! (tests/tests.mk): `use mpi` as dies_f, and with -DF08 `use mpi_f08` as dies_f_f08, whose
! MPI_Abort reaches MPICH's PMPI_Abort without passing MPI_Abort.
program dies_f
#ifdef F08
  use mpi_f08
#else
  use mpi
#endif
  implicit none
  integer :: ierr, rank, i, code
  character(len=16) :: arg
  double precision :: x, s
  code = 3
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) code
  end if
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  x = rank + 1
  do i = 1, 1000
    call MPI_Allreduce(x, s, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do
  if (rank == 1) then
    call MPI_Abort(MPI_COMM_WORLD, code, ierr) ! abort here
  end if
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program dies_f
