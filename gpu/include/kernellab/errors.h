// SPDX-License-Identifier: MIT
// Exceptions thrown inside gpu/ and caught once at the backend boundary or in the CLI.
#pragma once

#include <stdexcept>
#include <string>

namespace kernellab {

// Bad user input (sizes, launch configuration, files). The message names the value and the limit;
// the CLI exits with code 2 and the GUI keeps its state.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A CUDA API call failed. `sticky` marks errors after which the context is unusable
// ("the process must be terminated and relaunched", driver_types.h).
class CudaError : public std::runtime_error {
 public:
  CudaError(int code, std::string name, std::string text, std::string expr, std::string file,
            int line, bool sticky);
  int code() const { return code_; }
  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }
  bool sticky() const { return sticky_; }

 private:
  int code_;
  std::string name_;
  std::string text_;
  bool sticky_;
};

// The user asked to stop; thrown between launches, never from inside one.
class Cancelled : public std::runtime_error {
 public:
  Cancelled() : std::runtime_error("cancelled by the user") {}
};

}  // namespace kernellab
