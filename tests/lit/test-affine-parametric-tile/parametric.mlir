func.func @matmul(%ti: index, %tj: index, %tk: index, %A: memref<20x14xf32>, %B: memref<14x18xf32>, %C: memref<20x18xf32>) {
  affine.for %i = 0 to 20 {
    affine.for %j = 0 to 18 {
      affine.for %k = 0 to 14 {
        %a = affine.load %A[%i, %k] : memref<20x14xf32>
        %b = affine.load %B[%k, %j] : memref<14x18xf32>
        %c = affine.load %C[%i, %j] : memref<20x18xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        affine.store %s, %C[%i, %j] : memref<20x18xf32>
      }
    }
  }
  return
}

func.func @steps_and_offsets(%t0: index, %t1: index, %A: memref<40x30xi32>, %N: index) {
  affine.for %i = 3 to 40 step 4 {
    affine.for %j = 2 to min affine_map<()[s0] -> (s0, 30)>()[%N] step 3 {
      %v = affine.load %A[%i, %j] : memref<40x30xi32>
      %w = arith.addi %v, %v : i32
      affine.store %w, %A[%i, %j] : memref<40x30xi32>
    }
  }
  return
}

func.func @dim_and_symbol_bounds(%t0: index, %t1: index, %A: memref<?x?xf32>, %K: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %A, %c0 : memref<?x?xf32>
  %n = memref.dim %A, %c1 : memref<?x?xf32>
  affine.for %i = 0 to affine_map<(d0)[s0] -> (d0 - s0)>(%m)[%K] {
    affine.for %j = 0 to affine_map<()[s0] -> (s0 floordiv 2)>()[%n] step 2 {
      %v = affine.load %A[%i, %j] : memref<?x?xf32>
      %w = arith.mulf %v, %v : f32
      affine.store %w, %A[%i, %j] : memref<?x?xf32>
    }
  }
  return
}

func.func @imperfect(%t0: index, %t1: index, %A: memref<12x10xf32>, %x: memref<12xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 12 {
    affine.store %z, %x[%i] : memref<12xf32>
    affine.for %j = 0 to 10 {
      %a = affine.load %A[%i, %j] : memref<12x10xf32>
      %s = affine.load %x[%i] : memref<12xf32>
      %t = arith.addf %s, %a : f32
      affine.store %t, %x[%i] : memref<12xf32>
    }
  }
  affine.for %p = 0 to 12 {
    affine.for %q = 1 to 10 {
      %a = affine.load %A[%p, %q] : memref<12x10xf32>
      %b = affine.load %A[%p, %q - 1] : memref<12x10xf32>
      %c = arith.addf %a, %b : f32
      affine.store %c, %A[%p, %q] : memref<12x10xf32>
    }
  }
  return
}
