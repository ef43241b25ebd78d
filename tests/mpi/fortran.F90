! A Fortran program: its calls reach tardy only through the Fortran entry points. Built twice
! (tests/tests.mk): `use mpi` as fortran, and with -DF08 `use mpi_f08` as fortran_f08. The
! collectives with MPI_IN_PLACE give their send counts as a program may (ignored by MPI): a
! type of no size in Allgather, one element at the root of Gather; their results are checked.
! The barrier is a module procedure and the broadcast an external subroutine, so the call
! paths show Fortran names as written (fortran_util::sync_all, share, the program's name).
module fortran_util
contains
  subroutine sync_all()
#ifdef F08
    use mpi_f08
#else
    use mpi
#endif
    integer :: ierr
    call MPI_Barrier(MPI_COMM_WORLD, ierr) ! @site fbarrier
  end subroutine sync_all
end module fortran_util

subroutine share(x)
#ifdef F08
  use mpi_f08
#else
  use mpi
#endif
  double precision :: x(4)
  integer :: ierr
  call MPI_Bcast(x, 4, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr) ! @site fbcast
end subroutine share

program fortran
  use fortran_util
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
  double precision :: x(4), y, v(3), w(3), g(64)
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
  call share(x)
  call sync_all()

  v = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr) ! @site fip_allreduce
  if (any(v /= nranks * (nranks + 1) / 2)) error stop "in-place MPI_Allreduce: wrong result"
  v = rank + 1
  if (rank == 0) then
    call MPI_Reduce(MPI_IN_PLACE, v, 3, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr) ! @site fip_reduce
    if (any(v /= nranks * (nranks + 1) / 2)) error stop "in-place MPI_Reduce: wrong result"
  else
    call MPI_Reduce(v, w, 3, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr) ! @site freduce
  end if
  g = -1
  g(rank + 1) = 10 + rank
  call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, g, 1, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr) ! @site fip_allgather
  do i = 1, nranks
    if (g(i) /= 9 + i) error stop "in-place MPI_Allgather: wrong result"
  end do
  g = -1
  if (rank == 0) then
    g(1) = 10
    call MPI_Gather(MPI_IN_PLACE, 1, MPI_DOUBLE_PRECISION, g, 1, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr) ! @site fip_gather
    do i = 1, nranks
      if (g(i) /= 9 + i) error stop "in-place MPI_Gather: wrong result"
    end do
  else
    y = 10 + rank
    call MPI_Gather(y, 1, MPI_DOUBLE_PRECISION, g, 1, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr) ! @site fgather
  end if
  call MPI_Finalize(ierr)
end program fortran
