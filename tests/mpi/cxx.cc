// C++ program: calls from a class method and a template are attributed to their lines.
#include <mpi.h>
#include <vector>

template <typename T> static void reduce_all(std::vector<T> &v, MPI_Datatype t)
{
    MPI_Allreduce(MPI_IN_PLACE, v.data(), (int)v.size(), t, MPI_SUM, MPI_COMM_WORLD); // @site cxxreduce
}

class Ring {
  public:
    explicit Ring(int rank, int size) : rank_(rank), size_(size) {}
    void pass(std::vector<int> &data)
    {
        int right = (rank_ + 1) % size_, left = (rank_ + size_ - 1) % size_;
        MPI_Comm w = MPI_COMM_WORLD;
        MPI_Sendrecv_replace(data.data(), (int)data.size(), MPI_INT, right, 0, left, 0, w, MPI_STATUS_IGNORE); // @site cxxring
    }

  private:
    int rank_, size_;
};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<double> v(10, 1.0);
    std::vector<int> d(25, rank);
    Ring ring(rank, size);
    for (int i = 0; i < 4; i++) {
        reduce_all(v, MPI_DOUBLE);
        ring.pass(d);
    }
    MPI_Finalize();
    return 0;
}
