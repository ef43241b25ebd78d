! A Fortran program: its calls reach tardy only through the Fortran entry points. Built twice
! (tests/tests.mk): `use mpi` as fortran, and with -DF08 `use mpi_f08` as fortran_f08.
program fortran
#ifdef F08
  use mpi_f08
#else
  use mpi
#endif
  implicit none
  integer :: ierr, rank, nranks, i, partner
#ifdef F08
  type(MPI_Status) :: status
#else
  integer :: status(MPI_STATUS_SIZE)
#endif
  double precision :: x(4), y
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  x = rank
  partner = ieor(rank, 1)
  do i = 1, 3
    if (partner < nranks) then
      if (mod(rank, 2) == 0) then
        call MPI_Send(x, 4, MPI_DOUBLE_PRECISION, partner, 5, MPI_COMM_WORLD, ierr) ! @site fsend
      else
        call MPI_Recv(x, 4, MPI_DOUBLE_PRECISION, partner, 5, MPI_COMM_WORLD, status, ierr) ! @site frecv
      end if
    end if
    call MPI_Allreduce(x(1), y, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr) ! @site fallreduce
  end do
  call MPI_Bcast(x, 4, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr) ! @site fbcast
  call MPI_Barrier(MPI_COMM_WORLD, ierr) ! @site fbarrier
  call MPI_Finalize(ierr)
end program fortran
