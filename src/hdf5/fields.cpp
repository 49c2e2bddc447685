#include <pk/core/atomic_file.hpp>
#include <pk/core/error.hpp>
#include <pk/hdf5/fields.hpp>
#include <pk/mpi/agreement.hpp>

#include <hdf5.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <ostream>

namespace pk::hdf5 {

namespace {

namespace fs = std::filesystem;

// Closes an HDF5 handle when it goes out of scope.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  hid_t get() const { return id_; }
  // Closes it now; false when HDF5 reports an error (for the file: its last writes failed).
  bool close() {
    const herr_t status = close_(id_);
    id_ = -1;
    return status >= 0;
  }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

void check(bool ok, const std::string& path, const std::string& what) {
  require(ok, "writing '", path, "' failed (", what, "; disk full?)");
}

// Runs body on every rank and agrees on its errors (one process: just runs it).
void agreed(const mpi::Communicator* comm, const std::function<void()>& body) {
  if (comm)
    mpi::collectively(*comm, body);
  else
    body();
}

std::string dimensions(const std::array<int, 3>& extent, int components) {
  std::string text = std::to_string(extent[2]) + " " + std::to_string(extent[1]) + " " + std::to_string(extent[0]);
  return components > 1 ? text + " " + std::to_string(components) : text;
}

void write_xdmf(const std::string& path, const std::array<int, 3>& extent, const std::vector<Field>& fields,
                std::int64_t step) {
  const std::string h5 = fs::path(path).filename().string();
  write_file(xdmf_path(path), [&](std::ostream& out) {
    out << "<?xml version=\"1.0\" ?>\n"
        << "<Xdmf Version=\"3.0\">\n"
        << "  <Domain>\n"
        << "    <Grid Name=\"fields\" GridType=\"Uniform\">\n"
        << "      <Time Value=\"" << step << "\"/>\n"
        << "      <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"" << dimensions(extent, 1) << "\"/>\n"
        << "      <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
        << "        <DataItem Dimensions=\"3\" NumberType=\"Float\" Format=\"XML\">0 0 0</DataItem>\n"
        << "        <DataItem Dimensions=\"3\" NumberType=\"Float\" Format=\"XML\">1 1 1</DataItem>\n"
        << "      </Geometry>\n";
    for (const Field& f : fields) {
      const bool bytes = f.bytes != nullptr;
      out << "      <Attribute Name=\"" << f.name << "\" AttributeType=\"" << (f.components == 3 ? "Vector" : "Scalar")
          << "\" Center=\"Node\">\n"
          << "        <DataItem Dimensions=\"" << dimensions(extent, bytes ? 1 : f.components) << "\" NumberType=\""
          << (bytes ? "UChar" : "Float") << "\" Precision=\"" << (bytes ? 1 : 8) << "\" Format=\"HDF\">" << h5 << ":/"
          << f.name << "</DataItem>\n"
          << "      </Attribute>\n";
    }
    out << "    </Grid>\n"
        << "  </Domain>\n"
        << "</Xdmf>\n";
  });
}

}  // namespace

std::string xdmf_path(const std::string& path) {
  const std::string ending = ".h5";
  const bool h5 = path.size() >= ending.size() && path.compare(path.size() - ending.size(), ending.size(), ending) == 0;
  return (h5 ? path.substr(0, path.size() - ending.size()) : path) + ".xmf";
}

void write_fields(const mpi::Communicator* comm, const std::string& path, const std::array<int, 3>& extent,
                  const Box& box, const std::vector<Field>& fields, std::int64_t step) {
  const bool parallel = comm && comm->size() > 1;
  // A temporary beside `path`, named by rank 0's process: the same on every rank.
  long id = static_cast<long>(::getpid());
  if (parallel) MPI_Bcast(&id, 1, MPI_LONG, 0, comm->get());
  const fs::path target(path);
  const std::string temporary =
      (target.parent_path() / ("." + target.filename().string() + ".tmp-" + std::to_string(id))).string();
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors become one pk::Error line, not HDF5's stack
  agreed(comm, [&] {
    if (!target.parent_path().empty() && (!comm || comm->rank() == 0)) make_directories(target.parent_path().string());
  });
  agreed(comm, [&] {
    Handle access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    if (parallel) check(H5Pset_fapl_mpio(access.get(), comm->get(), MPI_INFO_NULL) >= 0, path, "MPI-IO driver");
    Handle transfer(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
    if (parallel) check(H5Pset_dxpl_mpio(transfer.get(), H5FD_MPIO_COLLECTIVE) >= 0, path, "collective transfer");
    Handle file(H5Fcreate(temporary.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get()), H5Fclose);
    check(file.get() >= 0, path, "cannot create it");
    {
      const hsize_t one = 1;
      Handle scalar(H5Screate_simple(1, &one, nullptr), H5Sclose);
      Handle attribute(H5Acreate2(file.get(), "step", H5T_STD_I64LE, scalar.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
      const long long value = step;
      check(attribute.get() >= 0 && H5Awrite(attribute.get(), H5T_NATIVE_LLONG, &value) >= 0, path, "attribute step");
    }
    for (const Field& f : fields) {
      const int components = f.bytes ? 1 : f.components;
      const int rank = components > 1 ? 4 : 3;
      const hsize_t whole[4] = {hsize_t(extent[2]), hsize_t(extent[1]), hsize_t(extent[0]), hsize_t(components)};
      const hsize_t start[4] = {hsize_t(box.origin[2]), hsize_t(box.origin[1]), hsize_t(box.origin[0]), 0};
      const hsize_t count[4] = {hsize_t(box.size[2]), hsize_t(box.size[1]), hsize_t(box.size[0]), hsize_t(components)};
      Handle file_space(H5Screate_simple(rank, whole, nullptr), H5Sclose);
      Handle memory_space(H5Screate_simple(rank, count, nullptr), H5Sclose);
      Handle dataset(H5Dcreate2(file.get(), f.name.c_str(), f.bytes ? H5T_STD_U8LE : H5T_IEEE_F64LE, file_space.get(),
                                H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                     H5Dclose);
      check(dataset.get() >= 0, path, "dataset " + f.name);
      check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr) >= 0, path,
            "hyperslab of " + f.name);
      const herr_t written = f.bytes ? H5Dwrite(dataset.get(), H5T_NATIVE_UINT8, memory_space.get(), file_space.get(),
                                                transfer.get(), f.bytes)
                                     : H5Dwrite(dataset.get(), H5T_NATIVE_DOUBLE, memory_space.get(), file_space.get(),
                                                transfer.get(), f.values);
      check(written >= 0, path, "dataset " + f.name);
    }
    check(file.close(), path, "closing it");
  });
  agreed(comm, [&] {
    if (comm && comm->rank() != 0) return;
    std::error_code ec;
    fs::rename(temporary, path, ec);
    require(!ec, "cannot write '", path, "': ", ec.message());
    write_xdmf(path, extent, fields, step);
  });
}

}  // namespace pk::hdf5
