// SPDX-License-Identifier: MIT
// Why no GPU works, told apart (issue 14, item 6): no NVIDIA driver at all, a driver too old for
// the CUDA runtime, a driver without a device. CUDA's runtime says "insufficient driver" for the
// first two alike; the status line and reports must not ask for a driver update on a laptop
// that has no NVIDIA driver.
#include <QtTest>

#include "kernellab/backend.h"

using namespace kernellab;

class TstMissingGpu : public QObject {
  Q_OBJECT
 private slots:
  void noDriverAtAll() {
    const GpuPresence none;
    const std::string why = explainMissingGpu("cudaErrorInsufficientDriver",
                                              "CUDA driver version is insufficient for CUDA runtime version", none, 0, 13000);
    QVERIFY2(why.rfind("no NVIDIA driver", 0) == 0, why.c_str());
    QVERIFY(why.find("update") == std::string::npos);
    QVERIFY(why.find("cudaErrorInsufficientDriver") != std::string::npos);  // CUDA's own words stay
  }

  void anOldDriver() {
    GpuPresence p;
    p.deviceNodes = true;
    p.driverLibrary = true;
    const std::string why = explainMissingGpu("cudaErrorInsufficientDriver", "CUDA driver version is insufficient", p, 12020, 13000);
    QVERIFY2(why.rfind("NVIDIA driver too old", 0) == 0, why.c_str());
    QVERIFY2(why.find("CUDA 12.2") != std::string::npos, why.c_str());
    QVERIFY2(why.find("CUDA 13.0") != std::string::npos, why.c_str());
    QVERIFY(why.find("update the driver") != std::string::npos);
  }

  void aDriverWithoutADevice() {
    GpuPresence p;
    p.driverLibrary = true;
    p.deviceNodes = true;
    const std::string why = explainMissingGpu("cudaErrorNoDevice", "no CUDA-capable device is detected", p, 13000, 13000);
    QVERIFY2(why.rfind("no CUDA device", 0) == 0, why.c_str());
    p.deviceNodes = false;
    const std::string noNodes = explainMissingGpu("cudaErrorNoDevice", "no CUDA-capable device is detected", p, 13000, 13000);
    QVERIFY2(noNodes.find("no /dev/nvidia*") != std::string::npos, noNodes.c_str());
  }

  void aLibraryWithoutNodesIsNotTooOld() {
    GpuPresence p;
    p.deviceNodes = true;  // the module is there, its library is not
    p.driverLibraryError = "libcuda.so.1: cannot open shared object file";
    const std::string why = explainMissingGpu("cudaErrorInsufficientDriver", "insufficient", p, 0, 13000);
    QVERIFY2(why.rfind("NVIDIA driver incomplete", 0) == 0, why.c_str());
    QVERIFY(why.find("cannot open shared object") != std::string::npos);
  }

  void thisMachineSaysWhichCase() {
    // Whatever this machine is, a CUDA build that cannot use a GPU names the case it is in.
    const BackendStatus s = backendStatus();
    if (!s.cudaBuilt || s.cudaUsable) QSKIP("CUDA works here, or this build has no CUDA backend");
    const GpuPresence p = probeGpuPresence();
    if (!p.deviceNodes && !p.driverLibrary)
      QVERIFY2(s.cudaReason.rfind("no NVIDIA driver", 0) == 0, s.cudaReason.c_str());
    QVERIFY2(backendSummary().rfind("CPU: ", 0) == 0, backendSummary().c_str());
  }
};

QTEST_GUILESS_MAIN(TstMissingGpu)
#include "tst_missing_gpu.moc"
