! Wait states through the Fortran entry points, ground truth by construction as in
! waits_accuracy.c: the last rank busy-waits DELAY seconds more before a send (received with
! MPI_Recv, then with MPI_Irecv + MPI_Waitany and an ignored status) and before a barrier.
! Rank 0 prints "truth SCENARIO RANK SECONDS LATE" per rank and the index MPI_Waitany returned
! ("waitany index N": MPICH 4.0's mpi_f08 counts from 0 there, pmodels/mpich#6270); it checks
! the data and statuses it received, and stops with an error when they are wrong.
! Built twice (tests/tests.mk): `use mpi` as waits_fortran, and with -DF08 `use mpi_f08` as
! waits_fortran_f08 (handles are derived types, the status type(MPI_Status), ierror optional:
! left out in the Waitany).
#ifdef F08
#define SOURCE_OF(s) s%MPI_SOURCE
#define TAG_OF(s) s%MPI_TAG
#define OPT_IERR
#else
#define SOURCE_OF(s) s(MPI_SOURCE)
#define TAG_OF(s) s(MPI_TAG)
#define OPT_IERR , ierr
#endif
program waits_fortran
#ifdef F08
  use mpi_f08
#else
  use mpi
#endif
  implicit none
  double precision, parameter :: delay = 0.15d0
  integer :: ierr, rank, nranks, last, idx
#ifdef F08
  type(MPI_Request) :: req(2)
  type(MPI_Status) :: status
#else
  integer :: req(2)
  integer :: status(MPI_STATUS_SIZE)
#endif
  double precision :: x, y, e, se, m
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  last = nranks - 1
  x = 1000 + rank
  y = -1

  ! Late Sender: the last rank sends late to rank 0.
  call MPI_Barrier(MPI_COMM_WORLD, ierr) ! @site sync_ls
  e = now()
  if (rank == last .and. nranks > 1) then
    call busy(delay)
    e = now()
    call MPI_Send(x, 1, MPI_DOUBLE_PRECISION, 0, 5, MPI_COMM_WORLD, ierr) ! @site ls_send
  else if (rank == 0 .and. nranks > 1) then
    e = now()
    call MPI_Recv(y, 1, MPI_DOUBLE_PRECISION, last, 5, MPI_COMM_WORLD, status, ierr) ! @site ls_recv
    if (y /= 1000 + last .or. SOURCE_OF(status) /= last .or. TAG_OF(status) /= 5) &
      error stop "MPI_Recv: wrong data or status"
  end if
  se = e
  call MPI_Bcast(se, 1, MPI_DOUBLE_PRECISION, last, MPI_COMM_WORLD, ierr) ! @site tbc1
  call truth("late_sender", merge(max(se - e, 0d0), 0d0, rank == 0 .and. nranks > 1), last)

  ! Wait at Barrier
  call MPI_Barrier(MPI_COMM_WORLD, ierr) ! @site sync_bar
  if (rank == last) call busy(delay)
  e = now()
  call MPI_Barrier(MPI_COMM_WORLD, ierr) ! @site op_barrier
  call MPI_Allreduce(e, m, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr) ! @site tmax
  call truth("barrier", max(m - e, 0d0), last)

  ! Late Sender through MPI_Irecv + MPI_Waitany (the second request completes)
  call MPI_Barrier(MPI_COMM_WORLD, ierr) ! @site sync_irecv
  e = now()
  if (rank == last .and. nranks > 1) then
    call busy(delay)
    e = now()
    call MPI_Send(x, 1, MPI_DOUBLE_PRECISION, 0, 6, MPI_COMM_WORLD, ierr) ! @site ls2_send
  else if (rank == 0 .and. nranks > 1) then
    y = -1
    req(1) = MPI_REQUEST_NULL
    call MPI_Irecv(y, 1, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &
                   req(2), ierr) ! @site ls2_irecv
    e = now()
    call MPI_Waitany(2, req, idx, MPI_STATUS_IGNORE OPT_IERR) ! @site ls2_wait
    if (y /= 1000 + last .or. req(2) /= MPI_REQUEST_NULL) &
      error stop "MPI_Waitany: wrong data or request"
    write (*, '(A, I0)') "waitany index ", idx
  end if
  se = e
  call MPI_Bcast(se, 1, MPI_DOUBLE_PRECISION, last, MPI_COMM_WORLD, ierr) ! @site tbc2
  call truth("waitany", merge(max(se - e, 0d0), 0d0, rank == 0 .and. nranks > 1), last)
  call MPI_Finalize(ierr)

contains

  double precision function now()
    integer(8) :: count, rate
    call system_clock(count, rate)
    now = dble(count) / dble(rate)
  end function now

  subroutine busy(s)
    double precision, intent(in) :: s
    double precision :: finish
    finish = now() + s
    do while (now() < finish)
    end do
  end subroutine busy

  ! rank 0 prints the true wait of every rank
  subroutine truth(name, wait_of_me, late)
    character(len=*), intent(in) :: name
    double precision, intent(in) :: wait_of_me
    integer, intent(in) :: late
    double precision :: all(64)
    integer :: r
    call MPI_Gather(wait_of_me, 1, MPI_DOUBLE_PRECISION, all, 1, MPI_DOUBLE_PRECISION, 0, &
                    MPI_COMM_WORLD, ierr) ! @site tg
    if (rank == 0) then
      do r = 0, min(nranks, 64) - 1
        write (*, '(A, 1X, A, 1X, I0, 1X, F12.9, 1X, I0)') "truth", name, r, all(r + 1), late
      end do
    end if
  end subroutine truth
end program waits_fortran
